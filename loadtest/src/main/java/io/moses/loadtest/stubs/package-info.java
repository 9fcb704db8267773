/**
 * Stub concrete services ({@code moses stubs}): SOAP services with configurable latency, failures
 * and up/down state, and an admin API to change them while a test or benchmark runs.
 */
package io.moses.loadtest.stubs;
