/**
 * Command-line clients of a running broker ({@code moses plan}, {@code moses admin}): they talk
 * to it over its HTTP admin API only, never in-process.
 */
package io.moses.core.cli;
