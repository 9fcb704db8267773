package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A request's place is given back when its response body is closed, once. */
class PlaceHolderTest {
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private boolean closed;

    private HttpServletResponse response() {
        ServletOutputStream body = new ServletOutputStream() {
            @Override public void write(int b) { written.write(b); }
            @Override public void close() { closed = true; }
            @Override public boolean isReady() { return true; }
            @Override public void setWriteListener(WriteListener listener) { }
        };
        return (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) -> method.getName().equals("getOutputStream") ? body : null);
    }

    @Test
    void closingTheBodyGivesThePlaceBackBeforeTheServletReturnsAndOnlyOnce() throws Exception {
        EnginePlaces places = new EnginePlaces(new OverloadBound(1, 0, Duration.ZERO), System::nanoTime);
        assertTrue(places.tryTake());
        OverloadFilter.PlaceHolder held = new OverloadFilter.PlaceHolder(response(), places);
        held.getOutputStream().write("<reply/>".getBytes());
        assertFalse(places.tryTake(), "held while the body is written");
        held.getOutputStream().close();
        assertTrue(closed, "the close reaches the response");
        assertEquals("<reply/>", written.toString());
        assertTrue(places.tryTake(), "free once the body is closed: the client has its answer");
        held.release(); // the filter's finally: must not give back a second place
        assertFalse(places.tryTake(), "given back once: the place taken after the close is still held");
    }

    @Test
    void aResponseWhoseBodyIsNeverClosedGivesItBackWhenTheFilterEnds() {
        EnginePlaces places = new EnginePlaces(new OverloadBound(1, 0, Duration.ZERO), System::nanoTime);
        assertTrue(places.tryTake());
        OverloadFilter.PlaceHolder held = new OverloadFilter.PlaceHolder(response(), places);
        assertFalse(places.tryTake());
        held.release();
        assertTrue(places.tryTake());
    }
}
