/**
 * The operators' admin console at {@code /console/}: static pages that read and act through the
 * JSON admin API only, and the login sessions behind them (kept in the knowledge base: valid on
 * every replica). The broker mounts it through {@link io.moses.core.console.Console}, its API for the
 * other packages; the rest is package-private.
 */
package io.moses.core.console;
