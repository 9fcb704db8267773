package io.moses.core.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.frontend.OverloadBound;
import io.moses.core.frontend.BasicAuthenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.OperatorFilter;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Console sessions live in the knowledge base: while it cannot be reached, a request with a
 * session cookie gets a clear 503 (not a 401 that looks like a logout, nor a 500), and HTTP Basic
 * still works. The outage is the knowledge base object closed under the console.
 */
class ConsoleOutageTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String OLGA = "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes());

    static HttpResponse<String> send(int port, String method, String path, Map<String, String> headers, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSessionTheKnowledgeBaseCannotCheckGets503AndBasicStillWorks() throws Exception {
        KnowledgeBase kb = Mdal.open("mem:outage" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE);
        kb.addServiceClass(new ServiceClass("gold", 1.5, 0.99, 10, 12));
        User olga = new User("olga", "gold", 0, PasswordHasher.hash("olga-secret".toCharArray(), 1000), Role.OPERATOR);
        kb.addUser(olga);
        // users from memory, as a replica's cache has them: HTTP Basic needs no database
        BasicAuthenticator auth = new BasicAuthenticator(Map.of("olga", olga)::get, PasswordHasher::verify, false);
        Console console = new Console(auth, kb.operatorSessions(), java.time.Clock.systemUTC());
        HttpFrontEnd http = new HttpFrontEnd("127.0.0.1", 0, 8, 1 << 20, OverloadBound.defaults(), java.time.Clock.systemUTC());
        try {
            http.filter("/admin/*", console.admin(new OperatorFilter(auth)));
            http.mount("/admin/*", new HttpServlet() {
                @Override
                protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
                    res.getWriter().write("hello " + ((User) req.getAttribute(OperatorFilter.USER_ATTRIBUTE)).name());
                }
            });
            http.filter("/console/*", console.guard());
            http.mount("/console/*", console.servlet());
            http.start();
            int port = http.port();
            HttpResponse<String> login = send(port, "POST", "/console/login", Map.of("Content-Type", "application/x-www-form-urlencoded"),
                    "user=olga&password=olga-secret");
            assertEquals(302, login.statusCode(), login.body());
            String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            assertEquals("hello olga", send(port, "GET", "/admin/plan", Map.of("Cookie", cookie), null).body());

            kb.close(); // the knowledge base is gone
            HttpResponse<String> admin = send(port, "GET", "/admin/plan", Map.of("Cookie", cookie), null);
            assertEquals(503, admin.statusCode(), admin.body());
            assertTrue(admin.body().contains("console sessions cannot be checked (HTTP Basic still works)"), admin.body());
            HttpResponse<String> page = send(port, "GET", "/console/console.js", Map.of("Cookie", cookie), null);
            assertEquals(503, page.statusCode(), page.body());
            HttpResponse<String> basic = send(port, "GET", "/admin/plan", Map.of("Authorization", OLGA), null);
            assertEquals(200, basic.statusCode(), basic.body());
            assertEquals(200, send(port, "GET", "/console/console.js", Map.of("Cookie", cookie, "Authorization", OLGA), null).statusCode());
            HttpResponse<String> relogin = send(port, "POST", "/console/login", Map.of("Content-Type", "application/x-www-form-urlencoded"),
                    "user=olga&password=olga-secret");
            assertEquals(503, relogin.statusCode(), relogin.body());
            assertTrue(relogin.body().contains("no session can be opened now"), relogin.body());
            HttpResponse<String> logout = send(port, "POST", "/console/logout", Map.of("Cookie", cookie), null);
            assertEquals(503, logout.statusCode(), logout.body());
            assertTrue(logout.headers().firstValue("Set-Cookie").isEmpty(), "the cookie stays until the logout is stored");
        } finally {
            http.close();
            kb.close();
        }
    }
}
