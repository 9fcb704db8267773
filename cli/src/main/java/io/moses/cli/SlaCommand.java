package io.moses.cli;

import io.moses.management.ManagementClients;
import io.moses.sla.wsdl.sla.Cancel;
import io.moses.sla.wsdl.sla.ChangePassword;
import io.moses.sla.wsdl.sla.ChangeSubscription;
import io.moses.sla.wsdl.sla.CounterOffer;
import io.moses.sla.wsdl.sla.GetClasses;
import io.moses.sla.wsdl.sla.GetClassesResponse;
import io.moses.sla.wsdl.sla.ServiceClassOffer;
import io.moses.sla.wsdl.sla.SlaFault_Exception;
import io.moses.sla.wsdl.sla.SlaManagerPort;
import io.moses.sla.wsdl.sla.SlaManagerService;
import io.moses.sla.wsdl.sla.Subscribe;
import io.moses.sla.wsdl.sla.SubscriptionResult;
import java.net.URL;
import java.util.Set;

/** {@code moses sla ...}: the SLA Manager's operations from the command line, over SOAP. */
public final class SlaCommand {
    static final String USAGE = """
            usage: moses sla COMMAND [--broker URL] [--user NAME] [options]
              classes                                   the classes, their SLAs and the rate each can still admit
              subscribe --user NAME --class K --rate R   subscribe a new user (the new user's password from MOSES_PASSWORD,
                                                        or asked); with registration closed, --as OPERATOR subscribes it
                                                        (the operator's password from MOSES_OPERATOR_PASSWORD)
              change [--for USER] [--class K] [--rate R] change your subscription (an operator may name --for USER)
              cancel [--for USER]                       end your subscription
              password [--for USER] [--password-file F] change your password (asked twice, or the first line of F);
                                                        an operator may reset --for USER's
            credentials: --user NAME (or MOSES_USER), password in MOSES_PASSWORD (never on the command line)
            --broker  the broker's base URL (default MOSES_BROKER or http://127.0.0.1:8080)
            exit status: 0 done or accepted, 1 refused or rejected (with the counter-offers), 2 bad usage""";

    private SlaCommand() {}

    public static void main(String[] args) {
        CommandLine cli = CommandLine.parse(args, Set.of("--broker", "--user", "--class", "--rate", "--for", "--as", "--password-file"), USAGE);
        ManagementClients.useJdkXPath();
        String broker = cli.broker();
        SlaManagerPort port;
        try {
            port = new SlaManagerService(new URL(broker + "/manage/sla?wsdl")).getSlaManagerPort();
        } catch (Exception e) {
            CommandLine.unreachable(broker, e);
            return;
        }
        try {
            switch (cli.command) {
                case "classes" -> {
                    GetClassesResponse r = port.getClasses(new GetClasses());
                    System.out.printf("%-12s %10s %8s %10s %8s %16s%n", "class", "R_max [s]", "A_min", "C_max", "price", "admissible [req/s]");
                    for (ServiceClassOffer k : r.getServiceClass())
                        System.out.printf("%-12s %10.3f %8.4f %10.3f %8.3f %16.4g%n", k.getName(), k.getMaxResponseTime(),
                                k.getMinAvailability(), k.getMaxCost(), k.getPrice(), k.getAdmissibleRate());
                    System.out.println("plan " + r.getPlanVersion());
                }
                case "subscribe" -> {
                    Subscribe s = new Subscribe();
                    s.setUser(cli.required("--user", USAGE));
                    s.setServiceClass(cli.required("--class", USAGE));
                    s.setRate(cli.number("--rate", USAGE) == null ? Double.NaN : cli.number("--rate", USAGE));
                    if (cli.option("--rate") == null) CommandLine.fail(USAGE, "--rate is required");
                    String password = System.getenv("MOSES_PASSWORD");
                    if (password == null && System.console() != null)
                        password = new String(System.console().readPassword("password for %s: ", s.getUser()));
                    if (password == null) CommandLine.fail(USAGE, "set MOSES_PASSWORD to the new user's password");
                    s.setPassword(password);
                    if (cli.option("--as") != null) {
                        String operatorPassword = System.getenv("MOSES_OPERATOR_PASSWORD");
                        if (operatorPassword == null) CommandLine.fail(USAGE, "--as OPERATOR: set MOSES_OPERATOR_PASSWORD");
                        ((jakarta.xml.ws.BindingProvider) port).getRequestContext().put(jakarta.xml.ws.BindingProvider.USERNAME_PROPERTY, cli.option("--as"));
                        ((jakarta.xml.ws.BindingProvider) port).getRequestContext().put(jakarta.xml.ws.BindingProvider.PASSWORD_PROPERTY, operatorPassword);
                    }
                    report(port.subscribe(s).getResult());
                }
                case "change" -> {
                    cli.authenticate(port, USAGE, true);
                    ChangeSubscription c = new ChangeSubscription();
                    c.setUser(cli.option("--for"));
                    c.setServiceClass(cli.option("--class"));
                    c.setRate(cli.number("--rate", USAGE));
                    if (c.getServiceClass() == null && c.getRate() == null) CommandLine.fail(USAGE, "change needs --class and/or --rate");
                    report(port.changeSubscription(c).getResult());
                }
                case "cancel" -> {
                    cli.authenticate(port, USAGE, true);
                    Cancel c = new Cancel();
                    c.setUser(cli.option("--for"));
                    var r = port.cancel(c);
                    System.out.println("cancelled: " + r.getUser() + ", plan " + r.getPlanVersion());
                }
                case "password" -> {
                    cli.authenticate(port, USAGE, true); // with the current password
                    ChangePassword c = new ChangePassword();
                    c.setUser(cli.option("--for"));
                    String who = cli.option("--for", cli.option("--user", System.getenv("MOSES_USER")));
                    c.setNewPassword(CommandLine.newPassword(cli.option("--password-file"), who, USAGE));
                    System.out.println("password changed: " + port.changePassword(c).getUser());
                }
                default -> CommandLine.fail(USAGE, "unknown command '" + cli.command + "'");
            }
        } catch (SlaFault_Exception e) {
            CommandLine.refused(e.getFaultInfo().getCode(), e.getFaultInfo().getMessage());
        } catch (RuntimeException e) {
            CommandLine.unreachable(broker, e);
        }
    }

    private static void report(SubscriptionResult r) {
        if (r.isAccepted()) {
            System.out.printf("accepted: %s in %s at %.4g req/s, served by plan %d%n", r.getUser(), r.getServiceClass(), r.getRate(), r.getPlanVersion());
            return;
        }
        System.out.println("rejected: " + r.getReason());
        for (CounterOffer o : r.getCounterOffer())
            System.out.printf("  counter-offer: %s at %.4g req/s%n", o.getServiceClass(), o.getRate());
        System.exit(1);
    }
}
