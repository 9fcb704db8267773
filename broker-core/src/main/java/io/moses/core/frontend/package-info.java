/**
 * The HTTP front end: embedded Jetty serving each composite service over SOAP (CXF), with
 * authentication of the caller's class, the body-size limit, the admission bound (a fast 503
 * beyond it), the operator check for the admin API, request metrics and the 404 fallback.
 */
package io.moses.core.frontend;
