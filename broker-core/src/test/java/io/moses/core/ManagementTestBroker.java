package io.moses.core;

import io.moses.core.loop.Adaptation;
import jakarta.xml.ws.BindingProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The broker the management SOAP tests talk to: the echo-pair process on a free port, its
 * partner stub, the optimizer on and adaptation off, seeded from {@code seed} (with
 * {@code ${PARTNER}} set to the stub's URL). Also gives a generated client its credentials.
 */
final class ManagementTestBroker implements AutoCloseable {
    final EchoPartner partner;
    final Broker broker;
    /** http://127.0.0.1:port of the broker */
    final String base;

    private ManagementTestBroker(EchoPartner partner, Broker broker) {
        this.partner = partner;
        this.broker = broker;
        this.base = "http://127.0.0.1:" + broker.port();
    }

    static ManagementTestBroker start(Path work, String seed, String db) throws Exception {
        io.moses.management.ManagementClients.useJdkXPath();
        Files.writeString(work.resolve("seed.yaml"), seed);
        EchoPartner partner = new EchoPartner(5);
        try {
            BrokerConfig config = BrokerConfig.defaults().withPort(0).withWorkDir(work).withDb(db)
                    .withAdaptation(Adaptation.off().withOptimizer(true, "auto")).withOpenRegistration(true)
                    .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                    .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            Broker broker = new Broker(config);
            broker.start();
            return new ManagementTestBroker(partner, broker);
        } catch (Exception | Error e) {
            partner.close();
            throw e;
        }
    }

    /** A generated client's port calling as {@code user} over HTTP Basic (anonymous when user is null). */
    static <P> P as(P port, String user, String password) {
        if (user != null) {
            ((BindingProvider) port).getRequestContext().put(BindingProvider.USERNAME_PROPERTY, user);
            ((BindingProvider) port).getRequestContext().put(BindingProvider.PASSWORD_PROPERTY, password);
        }
        return port;
    }

    @Override
    public void close() {
        broker.close();
        partner.close();
    }
}
