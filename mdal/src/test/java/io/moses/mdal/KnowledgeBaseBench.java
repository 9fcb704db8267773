package io.moses.mdal;

import io.moses.mdal.testing.GaleraCluster;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The knowledge base's own operations on one MariaDB against a three-node Galera cluster, in one
 * run (loadtest/bench-galera.sh runs it; results in docs/benchmarks/2026-11-25-galera.md): plan publication, a
 * subscription (version-checked), a service change, a replica's window write, and the replicas'
 * plan-version poll. One caller, the operations interleaved round by round between the two
 * back-ends so that the machine's load falls on both alike. Not a test: timings are goals, not
 * assertions.
 *
 * <pre>java -cp ... io.moses.mdal.KnowledgeBaseBench [rounds] [per round]</pre>
 */
public final class KnowledgeBaseBench {
    interface Op {
        void run(KnowledgeBase kb, int i);
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        MariaDbServer single = new MariaDbServer();
        GaleraCluster galera = new GaleraCluster(3);
        try {
            long t0 = System.nanoTime();
            single.start();
            long t1 = System.nanoTime();
            galera.start();
            long t2 = System.nanoTime();
            System.out.printf("started: one MariaDB in %.1f s, three Galera nodes (Synced) in %.1f s%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
            Map<String, KnowledgeBase> kbs = new LinkedHashMap<>();
            kbs.put("one MariaDB", Mdal.open(single.createDatabase(), single.credentials()));
            String galeraUrl = galera.createDatabase();
            kbs.put("Galera x3", Mdal.open(galeraUrl, galera.credentials()));
            for (KnowledgeBase kb : kbs.values()) {
                kb.addServiceClass(KnowledgeBaseContract.gold());
                kb.addServiceClass(new ServiceClass("silver", 3, 0.95, 6, 7));
                kb.addConcreteService(KnowledgeBaseContract.service("flight-a", KnowledgeBaseContract.FLIGHT));
                kb.addConcreteService(KnowledgeBaseContract.service("flight-b", KnowledgeBaseContract.FLIGHT));
                kb.addConcreteService(KnowledgeBaseContract.service("hotel-a", KnowledgeBaseContract.HOTEL));
            }
            Map<String, Op> ops = new LinkedHashMap<>();
            ops.put("plan publication", (kb, i) -> kb.publish(KnowledgeBaseContract.draft("bench " + i)));
            ops.put("subscription", (kb, i) -> kb.subscribe(new User("bench" + i, "gold", 0.01, KnowledgeBaseContract.HASH), kb.subscriptionsVersion()));
            ops.put("service change", (kb, i) -> kb.updateConcreteService("flight-a", s -> new ConcreteService(s.name(), s.task(), s.endpoint(),
                    new ProviderSla(s.sla().responseTime(), s.sla().availability(), 1 + i % 7, s.sla().maxRate()), s.mapping())));
            ops.put("window write (12 rows)", (kb, i) -> {
                List<ReplicaWindow> w = new ArrayList<>();
                for (int k = 0; k < 12; k++) w.add(new ReplicaWindow("r1", "service-" + k, 100 + i, i % 3, 0.05 + k / 100.0, Instant.now()));
                kb.putReplicaWindows("r1", w);
            });
            ops.put("plan-version poll (read)", (kb, i) -> kb.latestPlanVersion());
            Map<String, List<Long>> samples = new LinkedHashMap<>();
            int n = 0;
            for (int warm = 0; warm < 20; warm++)
                for (Map.Entry<String, KnowledgeBase> b : kbs.entrySet())
                    for (Op op : ops.values()) op.run(b.getValue(), n++);
            for (int r = 0; r < rounds; r++)
                for (Map.Entry<String, KnowledgeBase> b : kbs.entrySet())
                    for (Map.Entry<String, Op> op : ops.entrySet())
                        for (int i = 0; i < perRound; i++) {
                            long s = System.nanoTime();
                            op.getValue().run(b.getValue(), n++);
                            samples.computeIfAbsent(op.getKey() + "|" + b.getKey(), k -> new ArrayList<>()).add(System.nanoTime() - s);
                        }
            System.out.printf("%n%d rounds x %d calls per operation and back-end, one caller; ms per call%n", rounds, perRound);
            System.out.printf("| operation | one MariaDB median | p95 | Galera x3 median | p95 | Galera / one (median) |%n|---|---|---|---|---|---|%n");
            for (String op : ops.keySet()) {
                long[] a = sorted(samples.get(op + "|one MariaDB")), g = sorted(samples.get(op + "|Galera x3"));
                System.out.printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2fx |%n", op, ms(a, 0.5), ms(a, 0.95), ms(g, 0.5), ms(g, 0.95), ms(g, 0.5) / ms(a, 0.5));
            }
            kbs.values().forEach(KnowledgeBase::close);
            connectionCheck(galeraUrl, galera, rounds * perRound);
        } finally {
            galera.close();
            single.close();
        }
    }

    /**
     * What MDAL's node check (GaleraNodes: one SHOW GLOBAL STATUS) adds to opening a connection
     * to a Synced node: a plain connection to node 1 against one chosen by the check (node 1
     * too), opened and closed alternately. Paid once per pooled connection, not per transaction.
     */
    static void connectionCheck(String url, GaleraCluster galera, int n) throws java.sql.SQLException {
        GaleraNodes nodes = new GaleraNodes(Mdal.target(url).url(), galera.user(), galera.password());
        String node1 = nodes.nodeUrls().get(0);
        java.util.Properties p = new java.util.Properties();
        p.setProperty("user", galera.user());
        p.setProperty("password", galera.password());
        List<Long> plain = new ArrayList<>(), checked = new ArrayList<>();
        for (int i = -20; i < n; i++) {
            long s = System.nanoTime();
            java.sql.DriverManager.getConnection(node1, p).close();
            long m = System.nanoTime();
            nodes.getConnection().close();
            long e = System.nanoTime();
            if (i >= 0) {
                plain.add(m - s);
                checked.add(e - m);
            }
        }
        long[] a = sorted(plain), c = sorted(checked);
        System.out.printf("%nnew connection to node 1, %d each, ms: plain median %.2f p95 %.2f; with the node check median %.2f p95 %.2f (+%.2f ms median)%n",
                n, ms(a, 0.5), ms(a, 0.95), ms(c, 0.5), ms(c, 0.95), ms(c, 0.5) - ms(a, 0.5));
    }

    static long[] sorted(List<Long> l) {
        long[] a = l.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }

    static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))] / 1e6;
    }
}
