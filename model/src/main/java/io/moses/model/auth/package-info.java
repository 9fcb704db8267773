/**
 * How a caller says who it is: the HTTP Basic {@code Authorization} header, parsed in one place
 * for the composite front-end and the management services alike.
 */
package io.moses.model.auth;
