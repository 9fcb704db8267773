package io.moses.loadtest.driver;

/** Why a request did not succeed. */
public enum ErrorKind {
    /** A non-2xx status without a SOAP fault in the body. */
    HTTP_STATUS,
    /** A SOAP fault (whatever the HTTP status); examples carry the faultstring. */
    SOAP_FAULT,
    /** No complete reply within the request timeout. */
    TIMEOUT,
    /** Connection refused, reset, connect timeout or other I/O failure. */
    CONNECTION
}
