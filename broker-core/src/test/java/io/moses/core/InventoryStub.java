package io.moses.core;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The order-confirmation example's one partner, inventory.reserve, answering as the stub does: on a free port of 127.0.0.1. */
final class InventoryStub {
    private InventoryStub() {}

    /** Started; the unit's seed.yaml reaches it with {@code STUBS=http://127.0.0.1:PORT}. Stop it with {@code stop(0)}. */
    static HttpServer start() throws IOException {
        HttpServer inventory = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        inventory.createContext("/stubs/inventory", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] reply = (OrderConfirmationEndToEndTest.ENV
                    + "<m:reserveResponse xmlns:m='urn:moses:task:inventory'><result>reserved</result></m:reserveResponse>"
                    + OrderConfirmationEndToEndTest.END).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        inventory.start();
        return inventory;
    }

    /** The value of the seed's {@code STUBS} variable for {@code inventory}. */
    static String url(HttpServer inventory) {
        return "http://127.0.0.1:" + inventory.getAddress().getPort();
    }
}
