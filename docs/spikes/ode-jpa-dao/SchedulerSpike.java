package spike;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.*;
import java.util.concurrent.*;
import javax.transaction.TransactionManager;
import org.apache.geronimo.transaction.manager.TransactionManagerImpl;
import org.apache.ode.bpel.iapi.Scheduler;
import org.apache.ode.scheduler.simple.JdbcDelegate;
import org.apache.ode.scheduler.simple.SimpleScheduler;
import org.h2.jdbcx.JdbcDataSource;

/** usage: SchedulerSpike schedule|run|both <h2url>  — ODE SimpleScheduler + JdbcDelegate on H2 (table ODE_JOB). */
public class SchedulerSpike {
    // ODE 1.3.x simplesched DDL (schema v6), CHAR(64) -> VARCHAR(64) to avoid CHAR padding surprises
    static final String DDL = "CREATE TABLE IF NOT EXISTS ODE_JOB (jobid VARCHAR(64) NOT NULL DEFAULT '', ts BIGINT NOT NULL DEFAULT 0,"
        + " nodeid VARCHAR(64), scheduled INT NOT NULL DEFAULT 0, transacted INT NOT NULL DEFAULT 0, instanceId BIGINT,"
        + " mexId VARCHAR(255), processId VARCHAR(255), type VARCHAR(255), channel VARCHAR(255), correlatorId VARCHAR(255),"
        + " correlationKeySet VARCHAR(255), retryCount INT, inMem INT, detailsExt VARBINARY(4096), PRIMARY KEY(jobid));"
        + " CREATE INDEX IF NOT EXISTS IDX_ODE_JOB_TS ON ODE_JOB(ts); CREATE INDEX IF NOT EXISTS IDX_ODE_JOB_NODEID ON ODE_JOB(nodeid)";

    public static void main(String[] a) throws Exception {
        String mode = a[0], url = a[1];
        TransactionManager tm = new TransactionManagerImpl();
        javax.sql.DataSource h2; javax.sql.XADataSource xa;
        if (url.startsWith("jdbc:h2:")) {
            JdbcDataSource d = new JdbcDataSource(); d.setURL(url); d.setUser("sa"); h2 = d; xa = d;
            try (Connection c = h2.getConnection(); Statement s = c.createStatement()) { s.execute(DDL); }
        } else { // MariaDB: ODE 1.3.x MySQL DDL, TYPE=InnoDB -> ENGINE=InnoDB
            org.mariadb.jdbc.MariaDbDataSource d = new org.mariadb.jdbc.MariaDbDataSource(url); d.setUser("root"); h2 = d; xa = d;
            try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS ODE_JOB (jobid CHAR(64) NOT NULL DEFAULT '', ts BIGINT NOT NULL DEFAULT 0, nodeid char(64) NULL,"
                    + " scheduled int NOT NULL DEFAULT 0, transacted int NOT NULL DEFAULT 0, instanceId BIGINT, mexId varchar(255), processId varchar(255),"
                    + " type varchar(255), channel varchar(255), correlatorId varchar(255), correlationKeySet varchar(255), retryCount int, inMem int,"
                    + " detailsExt blob(4096), PRIMARY KEY(jobid), INDEX IDX_ODE_JOB_TS(ts), INDEX IDX_ODE_JOB_NODEID(nodeid)) ENGINE=InnoDB");
            }
        }
        EnlistingDataSource ds = new EnlistingDataSource(xa, h2, tm);
        BlockingQueue<Scheduler.JobInfo> fired = new LinkedBlockingQueue<>();
        SimpleScheduler sch = new SimpleScheduler("node1", new JdbcDelegate(ds), new Properties());
        sch.setTransactionManager(tm);
        sch.setExecutorService(Executors.newFixedThreadPool(2));
        sch.setJobProcessor(ji -> { System.out.println("onScheduledJob: " + ji.jobName + " details=" + ji.jobDetail); fired.add(ji); });
        if (mode.equals("schedule") || mode.equals("both")) {
            long t = System.nanoTime();
            String id = sch.execTransaction(() -> {
                Scheduler.JobDetails d = new Scheduler.JobDetails();
                d.setInstanceId(42L); d.setMexId("mex-1"); d.setType(Scheduler.JobType.TIMER); d.setChannel("ch-7");
                d.getDetailsExt().put("k", "v");
                return sch.schedulePersistedJob(d, new Date(System.currentTimeMillis() + 2000));
            });
            System.out.printf("scheduled persisted job %s in %.1f ms; rows in ODE_JOB=%d%n", id, (System.nanoTime() - t) / 1e6, count(h2));
        }
        if (mode.equals("run") || mode.equals("both")) {
            sch.start();
            Scheduler.JobInfo ji = fired.poll(30, TimeUnit.SECONDS);
            Thread.sleep(500);
            sch.stop();
            System.out.println(ji == null ? "JOB DID NOT FIRE" : "JOB FIRED OK: instanceId=" + ji.jobDetail.getInstanceId()
                    + " mex=" + ji.jobDetail.getMexId() + " channel=" + ji.jobDetail.getChannel() + " ext=" + ji.jobDetail.getDetailsExt()
                    + "; rows left in ODE_JOB=" + count(h2));
        }
        sch.shutdown();
        System.exit(0);
    }

    static int count(javax.sql.DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("select count(*) from ODE_JOB")) {
            r.next(); return r.getInt(1);
        }
    }
}
