/**
 * Concrete services and service classes in the broker's admin API as JSON ({@code
 * /admin/services}, {@code /admin/classes}), behind the broker's operator check: a refusal is an
 * HTTP status from its code and {@code {"error", "code"}}. The public API is the two servlets,
 * which the broker mounts.
 */
package io.moses.sla.http;
