package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The open model as the seed's users: the sessions file spreads the users over the bodies, and
 * httperf's sessions reach the target through the user header proxy (a real HAProxy) each with
 * its own user's Authorization header and no query left.
 */
@Tag("e2e")
class HttperfUsersTest {
    private static final List<Target.User> USERS = Bench.users();

    private static Target target(String url, List<String> bodies) {
        return new Target("adaptive", url, "urn:a", bodies, USERS, List.of(), 1);
    }

    @Test
    void sessionsGiveEveryBodyToSeveralUsersAndEveryUserTheSameShare() {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 180; i++) bodies.add("<b n=\"" + i + "\">@USER@</b>");
        String text = HttperfOpenModel.sessions(target("http://127.0.0.1:1/services/TripPlannerService", bodies), USERS, true);
        Pattern line = Pattern.compile("^/services/TripPlannerService\\?user=(\\w+) method=POST contents='<b n=\"(\\d+)\">(\\w+)</b>'$",
                Pattern.MULTILINE);
        Map<String, Integer> perUser = new TreeMap<>();
        Map<Integer, Set<String>> usersOfBody = new TreeMap<>();
        Matcher m = line.matcher(text);
        int sessions = 0;
        while (m.find()) {
            sessions++;
            assertEquals(m.group(1), m.group(3), "the body names the user the session is sent as");
            perUser.merge(m.group(1), 1, Integer::sum);
            usersOfBody.computeIfAbsent(Integer.parseInt(m.group(2)), k -> new java.util.TreeSet<>()).add(m.group(1));
        }
        assertEquals(HttperfOpenModel.MAX_SESSIONS, sessions, "under httperf's 1000 session templates");
        assertEquals(USERS.stream().map(Target.User::name).collect(Collectors.toCollection(java.util.TreeSet::new)), perUser.keySet());
        assertEquals(1, new java.util.HashSet<>(perUser.values()).size(), "every user the same share: " + perUser);
        assertEquals(180, usersOfBody.size());
        usersOfBody.values().forEach(u -> assertTrue(u.size() >= 4, "a body goes to several users, not always the same one: " + u));
        // one user only (no HAProxy): the plain path, and the user in the body
        String single = HttperfOpenModel.sessions(target("http://127.0.0.1:1/x", List.of("<b>@USER@</b>")), USERS.subList(0, 1), false);
        assertTrue(single.contains("\n/x method=POST contents='<b>alice</b>'\n"), single);
    }

    @Test
    void eachSessionReachesTheTargetWithItsUsersAuthorizationHeader() throws Exception {
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        List<String> queries = Collections.synchronizedList(new ArrayList<>());
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/svc", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (ex.getRequestURI().getRawQuery() != null) queries.add(ex.getRequestURI().getRawQuery());
            // the body names the session's user: its header must be that user's
            seen.merge(body + " " + auth, 1, Integer::sum);
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        Path dir = Files.createTempDirectory("moses-httperf-users");
        try {
            Target t = target("http://127.0.0.1:" + server.getAddress().getPort() + "/svc", List.of("@USER@"));
            List<OpenStep> steps = new HttperfOpenModel().run(t, new double[]{30}, 1, dir, null, c -> { }, s -> { });
            assertEquals(1, steps.size());
            assertEquals(0, steps.get(0).errors(), "every session answered: " + steps);
            assertTrue(queries.isEmpty(), "the proxy drops the ?user= query: " + queries);
            Map<String, String> expected = USERS.stream().collect(Collectors.toMap(Target.User::name, Target.User::authorization));
            Set<String> users = new java.util.TreeSet<>();
            for (String k : seen.keySet()) {
                String user = k.substring(0, k.indexOf(' '));
                assertEquals(expected.get(user), k.substring(k.indexOf(' ') + 1), "the Authorization header of " + user + ": " + seen);
                users.add(user);
            }
            assertEquals(expected.keySet(), users, "30 sessions at 30/s reach the target as all six users: " + seen);
            assertTrue(Files.readString(dir.resolve("users.map")).contains("alice Basic "), "the proxy's map");
        } finally {
            server.stop(0);
        }
    }
}
