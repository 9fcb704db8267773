/**
 * The HTTP front end: embedded Jetty serving each composite service over SOAP (CXF), with
 * authentication of the caller's class, the body-size limit, rate policing, the overload bound
 * ({@link io.moses.core.frontend.OverloadBound}: at most {@code --max-in-flight} composite
 * requests at once and {@code --max-queued} waiting, the class worth least shed first, a fast 503
 * beyond), the operator check for the admin API, request metrics and the 404 fallback. The
 * overload bound protects the engine from load; it is not SLA admission control, which decides
 * who may subscribe ({@code io.moses.sla}).
 */
package io.moses.core.frontend;
