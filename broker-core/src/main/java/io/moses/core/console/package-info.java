/**
 * The operators' admin console at {@code /console/}: static pages that read and act through the
 * JSON admin API only, and the in-memory login sessions behind them.
 */
package io.moses.core.console;
