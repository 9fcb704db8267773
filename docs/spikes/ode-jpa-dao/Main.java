package spike;

import java.io.*;
import java.util.*;
import javax.sql.DataSource;
import javax.transaction.TransactionManager;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.geronimo.transaction.manager.TransactionManagerImpl;
import org.apache.ode.bpel.common.*;
import org.apache.ode.bpel.dao.*;
import org.apache.ode.dao.jpa.BPELDAOConnectionFactoryImpl;
import org.h2.jdbcx.JdbcDataSource;
import org.w3c.dom.*;

/**
 * usage: Main write|read|both <jdbcUrl> [n]
 *   system props: ds=xa (default: JTA-enlisting wrapper) | plain (raw H2 DataSource, autocommit)
 *                 dict=<openjpa DBDictionary>  (default: h2)
 */
public class Main {
    static final QName PID = new QName("urn:spike", "Proc-1");
    static final QName TYPE = new QName("urn:spike", "Proc");
    static final String IDFILE = "/tmp/spike46/last-instance-id.txt";

    static BPELDAOConnectionFactoryImpl fac;
    static TransactionManager tm;

    public static void main(String[] args) throws Exception {
        String mode = args[0], url = args[1];
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        System.out.println("java.version=" + System.getProperty("java.version") + " url=" + url + " ds=" + System.getProperty("ds", "xa"));
        long t0 = System.nanoTime();
        open(url);
        System.out.printf("factory init: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        if (mode.equals("write") || mode.equals("both")) write(n);
        if (mode.equals("both")) { fac.shutdown(); open(url); }
        if (mode.equals("read") || mode.equals("both")) read();
        if (mode.equals("ext")) ext();
        if (mode.equals("mt")) mt(Integer.getInteger("threads", 4), n);
        fac.shutdown();
        System.out.println("DONE OK");
    }

    static void open(String url) throws Exception {
        tm = new TransactionManagerImpl();
        DataSource ds, plainDs;
        String user = System.getProperty("user", "sa"), pw = System.getProperty("pw", "");
        if (url.startsWith("jdbc:h2:")) {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url); h2.setUser(user); h2.setPassword(pw);
            plainDs = h2;
            ds = "plain".equals(System.getProperty("ds")) ? h2 : "dbcp".equals(System.getProperty("ds")) ? dbcp(h2) : new EnlistingDataSource(h2, h2, tm);
        } else {
            // MariaDB
            Class<?> c = Class.forName("org.mariadb.jdbc.MariaDbDataSource");
            Object m = c.getConstructor(String.class).newInstance(url);
            c.getMethod("setUser", String.class).invoke(m, user);
            c.getMethod("setPassword", String.class).invoke(m, pw);
            plainDs = (DataSource) m;
            ds = "plain".equals(System.getProperty("ds")) ? (DataSource) m
                    : "dbcp".equals(System.getProperty("ds")) ? dbcp((javax.sql.XADataSource) m)
                    : new EnlistingDataSource((javax.sql.XADataSource) m, (DataSource) m, tm);
        }
        fac = new BPELDAOConnectionFactoryImpl();
        fac.setDataSource(ds);
        fac.setTransactionManager(tm);
        String dict = System.getProperty("dict", "h2");
        if (!dict.equals("auto")) fac.setDBDictionary(dict);
        Properties p = new Properties();
        p.put("openjpa.jdbc.SynchronizeMappings", "buildSchema(ForeignKeys=true)");
        // non-JTA DataSource for OpenJPA's schema tool and sequence table (otherwise they run on the enlisted XA
        // connection: MariaDB then fails with XAER_RMFAIL on the schema tool's commit/setAutoCommit)
        if (!"false".equals(System.getProperty("cf2"))) p.put("openjpa.ConnectionFactory2", plainDs);
        if (System.getProperty("jpalog") != null) p.put("openjpa.Log", System.getProperty("jpalog"));
        for (String k : System.getProperties().stringPropertyNames())
            if (k.startsWith("openjpa.")) p.put(k, System.getProperty(k));
        fac.init(p);
    }

    /** pooled JTA-enlisting DataSource from commons-dbcp2 2.9.0 (javax.transaction) over the driver's XADataSource */
    static DataSource dbcp(javax.sql.XADataSource xa) {
        org.apache.commons.dbcp2.managed.BasicManagedDataSource b = new org.apache.commons.dbcp2.managed.BasicManagedDataSource();
        b.setTransactionManager(tm);
        b.setXaDataSourceInstance(xa);
        b.setMaxTotal(16); b.setMinIdle(1);
        return b;
    }

    static Element elem(String text) throws Exception {
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
        Element e = d.createElementNS("urn:spike", "s:msg");
        Element c = d.createElementNS("urn:spike", "s:body");
        c.setTextContent(text);
        e.appendChild(c);
        d.appendChild(e);
        return e;
    }

    static byte[] state(long id) { byte[] b = new byte[Integer.getInteger("statesize", 4096)]; new Random(id).nextBytes(b); return b; }

    static void write(int n) throws Exception {
        Long lastId = null;
        ProcessDAO proc;
        long t = System.nanoTime();
        tm.begin();
        BpelDAOConnection conn = fac.getConnection();
        proc = conn.getProcess(PID);
        if (proc == null) {
            proc = conn.createProcess(PID, TYPE, "guid-" + UUID.randomUUID(), 1L);
            proc.addCorrelator("corr1");
        }
        tm.commit();
        System.out.printf("process create+commit: %d ms%n", (System.nanoTime() - t) / 1_000_000);
        long[] times = new long[n];
        for (int i = 0; i < n; i++) {
            t = System.nanoTime();
            tm.begin();
            conn = fac.getConnection();
            proc = conn.getProcess(PID);
            CorrelatorDAO corr = proc.getCorrelator("corr1");
            ProcessInstanceDAO inst = proc.createInstance(corr);
            inst.setState((short) 20); // ProcessState.STATE_ACTIVE
            ScopeDAO root = inst.createScope(null, "__PROCESS_SCOPE:Proc", 1);
            XmlDataDAO var = root.getVariable("input");
            var.set(elem("hello-" + i));
            var.setProperty("prop1", "v" + i);
            CorrelationSetDAO cs = root.getCorrelationSet("orderCS");
            cs.setValue(new QName[]{new QName("urn:spike", "orderId")}, new CorrelationKey("orderCS", new String[]{"order-" + i}));
            inst.setExecutionState(state(i));
            tm.commit();
            // re-read id after commit (ids are assigned at flush)
            lastId = inst.getInstanceId();
            times[i] = (System.nanoTime() - t) / 1000;
            try (Writer w = new FileWriter(IDFILE)) { w.write(lastId + " " + i); }
        }
        System.out.println("instance create+commit times (us): " + Arrays.toString(times));
        long[] s = times.clone(); Arrays.sort(s);
        System.out.printf("instance create+commit median: %.2f ms (first: %.1f ms)%n", s[n / 2] / 1000.0, times[0] / 1000.0);
        System.out.println("last instance id=" + lastId + " physical XA connections opened=" + EnlistingDataSource.physicalOpens);

        // update path: load + modify state + commit
        t = System.nanoTime();
        tm.begin();
        conn = fac.getConnection();
        ProcessInstanceDAO inst = conn.getInstance(lastId);
        byte[] st = inst.getExecutionState();
        inst.setExecutionState(st);
        inst.setLastActiveTime(new Date());
        tm.commit();
        System.out.printf("instance load+update+commit: %.2f ms%n", (System.nanoTime() - t) / 1e6);

        // rollback check
        tm.begin();
        conn = fac.getConnection();
        ProcessInstanceDAO rb = conn.getProcess(PID).createInstance(conn.getProcess(PID).getCorrelator("corr1"));
        rb.setExecutionState(new byte[]{1, 2, 3});
        tm.rollback();
        tm.begin();
        conn = fac.getConnection();
        int num = conn.getNumInstances(PID);
        tm.commit();
        System.out.println("numInstances after rollback of one extra create: " + num);
    }

    /** concurrent instance creation: each thread its own JTA tx (thread-bound) and ODE's thread-local DAO connection */
    static void mt(int threads, int per) throws Exception {
        tm.begin();
        BpelDAOConnection c0 = fac.getConnection();
        ProcessDAO p0 = c0.getProcess(PID);
        if (p0 == null) c0.createProcess(PID, TYPE, "guid-" + UUID.randomUUID(), 1L).addCorrelator("corr1");
        int before = c0.getNumInstances(PID);
        tm.commit();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        Set<Long> ids = Collections.synchronizedSet(new HashSet<>());
        long t = System.nanoTime();
        Thread[] ts = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            final int kk = k;
            ts[k] = new Thread(() -> {
                for (int i = 0; i < per; i++) {
                    try {
                        tm.begin();
                        BpelDAOConnection conn = fac.getConnection();
                        ProcessDAO proc = conn.getProcess(PID);
                        ProcessInstanceDAO inst = proc.createInstance(proc.getCorrelator("corr1"));
                        ScopeDAO root = inst.createScope(null, "__PROCESS_SCOPE:Proc", 1);
                        root.getVariable("input").set(elem("t" + kk + "-" + i));
                        inst.setExecutionState(state(i));
                        tm.commit();
                        ids.add(inst.getInstanceId());
                    } catch (Throwable e) {
                        errors.add(e);
                        try { tm.rollback(); } catch (Throwable ignore) {}
                    }
                }
            });
            ts[k].start();
        }
        for (Thread th : ts) th.join();
        double ms = (System.nanoTime() - t) / 1e6;
        tm.begin();
        int after = fac.getConnection().getNumInstances(PID);
        tm.commit();
        System.out.printf("mt: %d threads x %d instances in %.0f ms (%.1f tx/s); distinct ids=%d; rows added=%d; errors=%d%n",
                threads, per, ms, threads * per / (ms / 1000), ids.size(), after - before, errors.size());
        for (int e = 0; e < Math.min(3, errors.size()); e++) errors.get(e).printStackTrace(System.out);
        if (!errors.isEmpty() || after - before != threads * per || ids.size() != threads * per) throw new IllegalStateException("mt failed");
        System.out.println("MT OK");
    }

    /** wider DAO surface: message exchanges/messages, correlator routes + queued messages, events, instanceQuery, delete */
    static void ext() throws Exception {
        CorrelationKeySet ks = new CorrelationKeySet().add(new CorrelationKey("orderCS", new String[]{"ext-1"}));
        tm.begin();
        BpelDAOConnection conn = fac.getConnection();
        ProcessDAO proc = conn.getProcess(PID);
        if (proc == null) { proc = conn.createProcess(PID, TYPE, "guid-" + UUID.randomUUID(), 1L); proc.addCorrelator("corr1"); }
        CorrelatorDAO corr = proc.getCorrelator("corr1");
        ProcessInstanceDAO inst = proc.createInstance(corr);
        inst.setState((short) 20);
        ScopeDAO root = inst.createScope(null, "__PROCESS_SCOPE:Proc", 1);
        root.getVariable("v").set(elem("x"));
        corr.addRoute("grp1", inst, 0, ks, "one");
        MessageExchangeDAO mex = conn.createMessageExchange(MessageExchangeDAO.DIR_PARTNER_INVOKES_MYROLE);
        mex.setOperation("op"); mex.setPattern("REQUEST_RESPONSE"); mex.setProcess(proc); mex.setInstance(inst);
        mex.setProperty("p1", "pv1"); mex.setStatus("REQUEST");
        MessageDAO msg = mex.createMessage(new QName("urn:spike", "msgType"));
        msg.setData(elem("payload"));
        mex.setRequest(msg);
        MessageExchangeDAO mex2 = conn.createMessageExchange(MessageExchangeDAO.DIR_PARTNER_INVOKES_MYROLE);
        mex2.setOperation("op2"); mex2.setProcess(proc); mex2.setStatus("REQUEST");
        MessageDAO msg2 = mex2.createMessage(new QName("urn:spike", "msgType"));
        msg2.setData(elem("queued")); mex2.setRequest(msg2);
        corr.enqueueMessage(mex2, ks);
        conn.insertBpelEvent(new org.apache.ode.bpel.evt.ProcessInstanceStartedEvent(), proc, inst);
        tm.commit();
        String mexId = mex.getMessageExchangeId(); Long iid = inst.getInstanceId();
        System.out.println("ext: created instance " + iid + " mex " + mexId + " mex2 " + mex2.getMessageExchangeId());

        tm.begin();
        conn = fac.getConnection();
        proc = conn.getProcess(PID);
        corr = proc.getCorrelator("corr1");
        MessageExchangeDAO m = conn.getMessageExchange(mexId);
        int routes = corr.findRoute(ks).size();
        MessageExchangeDAO deq = corr.dequeueMessage(ks);
        Collection<ProcessInstanceDAO> active = conn.instanceQuery(new InstanceFilter("status=active"));
        int nActive = active.size();
        Collection<ProcessInstanceDAO> byIid = conn.instanceQuery(new InstanceFilter("iid=" + iid));
        List<org.apache.ode.bpel.evt.BpelEvent> evs;
        try { evs = conn.bpelEventQuery(new InstanceFilter("iid=" + iid), new BpelEventFilter(null, 0)); }
        catch (UnsupportedOperationException e) { System.out.println("ext: BpelDAOConnection.bpelEventQuery -> UnsupportedOperationException in ode-dao-jpa 1.3.7"); evs = Collections.emptyList(); }
        System.out.println("ext: mex.op=" + m.getOperation() + " prop p1=" + m.getProperty("p1") + " req.data=" + m.getRequest().getData().getTextContent()
                + " mex.instance=" + m.getInstance().getInstanceId() + " routes=" + routes
                + " dequeued=" + (deq == null ? null : deq.getOperation() + ":" + deq.getRequest().getData().getTextContent())
                + " instanceQuery(status=active)=" + nActive + " instanceQuery(iid)=" + byIid.size() + " events=" + evs.size()
                + (evs.isEmpty() ? "" : " " + evs.get(0).getClass().getSimpleName()));
        tm.commit();

        tm.begin();
        conn = fac.getConnection();
        ProcessInstanceDAO del = conn.getInstance(iid);
        del.delete(EnumSet.allOf(org.apache.ode.bpel.iapi.ProcessConf.CLEANUP_CATEGORY.class));
        tm.commit();
        tm.begin();
        conn = fac.getConnection();
        System.out.println("ext: after delete(all categories): getInstance=" + conn.getInstance(iid) + " mex=" + conn.getMessageExchange(mexId));
        tm.commit();
        System.out.println("EXT OK");
    }

    static void read() throws Exception {
        String[] s = new BufferedReader(new FileReader(IDFILE)).readLine().split(" ");
        long id = Long.parseLong(s[0]); int i = Integer.parseInt(s[1]);
        long t = System.nanoTime();
        tm.begin();
        BpelDAOConnection conn = fac.getConnection();
        ProcessInstanceDAO inst = conn.getInstance(id);
        if (inst == null) throw new IllegalStateException("instance " + id + " not found");
        boolean stateOk = Arrays.equals(inst.getExecutionState(), state(i));
        ScopeDAO root = inst.getRootScope();
        XmlDataDAO var = root.getVariable("input");
        Node n = var.get();
        String txt = n.getTextContent();
        String prop = var.getProperty("prop1");
        // NB: ProcessInstanceDAOImpl.getCorrelationSet(String) throws UnsupportedOperationException in ode-dao-jpa 1.3.7
        CorrelationSetDAO cs = root.getCorrelationSet("orderCS");
        int nCs = inst.getCorrelationSets().size();
        CorrelationKey key = cs == null ? null : cs.getValue();
        Map<QName, String> props = cs == null ? null : cs.getProperties();
        Collection<ProcessInstanceDAO> found = conn.getProcess(PID).findInstance(new CorrelationKey("orderCS", new String[]{"order-" + i}));
        System.out.println("read instance " + id + ": state=" + inst.getState() + " execStateRoundTrip=" + stateOk
                + " var.node=" + n.getClass().getSimpleName() + ":" + n.getLocalName() + " text='" + txt + "' prop1=" + prop
                + " instCorrSets=" + nCs + " corrKey=" + key + " csProps=" + props + " findInstance(key)=" + found.size()
                + " process=" + inst.getProcess().getProcessId() + " v" + inst.getProcess().getVersion()
                + " numInstances=" + conn.getNumInstances(PID));
        // NB: query result lists are lazy and closed at commit: consume them inside the transaction
        boolean ok = stateOk && ("hello-" + i).equals(txt) && ("v" + i).equals(prop) && key != null
                && key.getValues()[0].equals("order-" + i) && found.size() == 1;
        tm.commit();
        System.out.printf("read time: %.1f ms%n", (System.nanoTime() - t) / 1e6);
        System.out.println(ok ? "ROUNDTRIP OK" : "ROUNDTRIP MISMATCH");
        if (!ok) throw new IllegalStateException("roundtrip mismatch");
    }
}
