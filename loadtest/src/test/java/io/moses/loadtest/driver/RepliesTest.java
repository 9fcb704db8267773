package io.moses.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

class RepliesTest {
    @Test
    void okRepliesAreSuccesses() {
        assertNull(Replies.classify(200, "<s:Envelope><s:Body><FaultyTowers/></s:Body></s:Envelope>"));
        assertNull(Replies.classify(202, ""));
    }

    @Test
    void soapFaultsWhateverTheStatus() {
        String soap11 = "<e:Envelope xmlns:e='x'><e:Body><e:Fault><faultcode>e:Client</faultcode>"
                + "<faultstring xml:lang='en'>bad\n  input &lt;x&gt;</faultstring></e:Fault></e:Body></e:Envelope>";
        assertEquals(new Replies.RequestError(ErrorKind.SOAP_FAULT, "HTTP 500: bad input <x>"), Replies.classify(500, soap11));
        assertEquals(ErrorKind.SOAP_FAULT, Replies.classify(200, soap11).kind());
        String soap12 = "<env:Envelope><env:Body><env:Fault><env:Code><env:Value>env:Receiver</env:Value></env:Code>"
                + "<env:Reason><env:Text xml:lang=\"en\">no service bound</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>";
        assertEquals("HTTP 500: no service bound", Replies.classify(500, soap12).message());
        assertEquals("HTTP 500: (fault without faultstring)", Replies.classify(500, "<Fault/>").message());
    }

    @Test
    void otherStatusesAreHttpErrors() {
        assertEquals(new Replies.RequestError(ErrorKind.HTTP_STATUS, "HTTP 404: Not Found"),
                Replies.classify(404, "<html><h1>Not Found</h1></html>"));
        assertEquals(new Replies.RequestError(ErrorKind.HTTP_STATUS, "HTTP 401"), Replies.classify(401, ""));
        assertEquals(200 + "HTTP 502: ".length() + 3, Replies.classify(502, "x".repeat(5000)).message().length());
    }

    @Test
    void exceptions() {
        assertEquals(ErrorKind.TIMEOUT, Replies.classify(new HttpTimeoutException("request timed out"), 250).kind());
        assertEquals("no reply within 250 ms", Replies.classify(new HttpTimeoutException("x"), 250).message());
        assertEquals(ErrorKind.CONNECTION, Replies.classify(new HttpConnectTimeoutException("x"), 250).kind());
        IOException wrapped = new ConnectException();
        wrapped.initCause(new IOException("Connection refused"));
        assertEquals(new Replies.RequestError(ErrorKind.CONNECTION, "ConnectException: Connection refused"), Replies.classify(wrapped, 1));
        assertEquals("ConnectException", Replies.classify(new ConnectException(), 1).message());
    }
}
