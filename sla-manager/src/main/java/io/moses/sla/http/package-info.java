/**
 * The Service Manager's register of concrete services, service classes and subscriptions in the
 * broker's admin API as JSON ({@code /admin/services}, {@code /admin/classes}, {@code
 * /admin/subscriptions}), behind the broker's operator check: a refusal is an
 * HTTP status from its code and {@code {"error", "code"}}. The public API is the three servlets,
 * which the broker mounts.
 */
package io.moses.sla.http;
