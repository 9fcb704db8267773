/**
 * The HTTP front end: embedded Jetty serving each composite service over SOAP (CXF), with
 * authentication of the caller's class, every body read whole before anything else sees it
 * (within the size limit and the read deadline, holding no thread while it arrives:
 * {@code WholeBodies}, {@code HeaderDeadline}), rate policing, the overload bound
 * ({@link io.moses.core.frontend.OverloadBound}: at most {@code --max-in-flight} composite
 * requests at once and {@code --max-queued} waiting, the class worth least shed first, a fast 503
 * beyond), the operator check for the admin API, request metrics and the 404 fallback. The
 * overload bound protects the engine from load; it is not SLA admission control, which decides
 * who may subscribe ({@code io.moses.sla}). Its API for the other packages is what the wiring
 * builds and configures: {@link io.moses.core.frontend.HttpFrontEnd}, the authenticators
 * ({@link io.moses.core.frontend.Authenticator}, {@link io.moses.core.frontend.BasicAuthenticator},
 * {@link io.moses.core.frontend.AuthenticationException}), {@link io.moses.core.frontend.OperatorFilter},
 * {@link io.moses.core.frontend.OverloadBound}, {@link io.moses.core.frontend.ClassWorth},
 * {@link io.moses.core.frontend.RatePolicy}, {@link io.moses.core.frontend.RatePolicing},
 * {@link io.moses.core.frontend.RequestMetrics}, and the cluster's
 * {@link io.moses.core.frontend.ConversationForwarding} and {@link io.moses.core.frontend.HopSeal};
 * the filters and servlets are package-private.
 */
package io.moses.core.frontend;
