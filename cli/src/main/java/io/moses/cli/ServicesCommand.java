package io.moses.cli;

import io.moses.management.ManagementClients;
import io.moses.sla.wsdl.services.AddService;
import io.moses.sla.wsdl.services.ChangeResponse;
import io.moses.sla.wsdl.services.ConcreteService;
import io.moses.sla.wsdl.services.ListServices;
import io.moses.sla.wsdl.services.ListServicesResponse;
import io.moses.sla.wsdl.services.ProviderSla;
import io.moses.sla.wsdl.services.RemoveService;
import io.moses.sla.wsdl.services.ServiceFault_Exception;
import io.moses.sla.wsdl.services.ServiceManagerPort;
import io.moses.sla.wsdl.services.ServiceManagerService;
import io.moses.sla.wsdl.services.UpdateService;
import java.net.URL;
import java.util.Set;

/** {@code moses services ...}: the Service Manager's operations from the command line (operators), over SOAP. */
public final class ServicesCommand {
    static final String USAGE = """
            usage: moses services COMMAND [--broker URL] [--user OPERATOR] [options]
              list [--composite C]                      concrete services, their SLAs, whether the plan uses them
              add --name N --composite C --task PL.OP --endpoint URL
                  --response-time S --availability A --cost C --max-rate L
                                                        add a concrete service (re-planned before the reply)
              update NAME [--endpoint URL] [--response-time S] [--availability A] [--cost C] [--max-rate L]
              remove NAME                               remove it; if the plan uses it, its traffic moves first
            credentials: --user NAME (or MOSES_USER) of an operator, password in MOSES_PASSWORD
            --broker  the broker's base URL (default MOSES_BROKER or http://127.0.0.1:8080)
            exit status: 0 done, 1 refused, 2 bad usage""";

    private ServicesCommand() {}

    public static void main(String[] args) {
        CommandLine cli = CommandLine.parse(args, Set.of("--broker", "--user", "--composite", "--name", "--task", "--endpoint", "--response-time",
                "--availability", "--cost", "--max-rate"), USAGE);
        ManagementClients.useJdkXPath();
        String broker = cli.broker();
        ServiceManagerPort port;
        try {
            port = new ServiceManagerService(new URL(broker + "/manage/services?wsdl")).getServiceManagerPort();
        } catch (Exception e) {
            CommandLine.unreachable(broker, e);
            return;
        }
        cli.authenticate(port, USAGE, true);
        try {
            switch (cli.command) {
                case "list" -> {
                    ListServices l = new ListServices();
                    l.setComposite(cli.option("--composite"));
                    ListServicesResponse r = port.listServices(l);
                    System.out.printf("%-16s %-32s %8s %8s %8s %9s %5s  %s%n", "name", "task", "r [s]", "a", "cost", "l [req/s]", "used", "endpoint");
                    for (ConcreteService s : r.getService())
                        System.out.printf("%-16s %-32s %8.3f %8.4f %8.3f %9.1f %5s  %s%n", s.getName(), s.getComposite() + "/" + s.getTask(),
                                s.getSla().getResponseTime(), s.getSla().getAvailability(), s.getSla().getCost(), s.getSla().getMaxRate(),
                                Boolean.TRUE.equals(s.isUsed()) ? "yes" : "no", s.getEndpoint());
                    System.out.println("plan " + r.getPlanVersion());
                }
                case "add" -> {
                    ConcreteService s = new ConcreteService();
                    s.setName(cli.required("--name", USAGE));
                    s.setComposite(cli.required("--composite", USAGE));
                    s.setTask(cli.required("--task", USAGE));
                    s.setEndpoint(cli.required("--endpoint", USAGE));
                    ProviderSla sla = new ProviderSla();
                    sla.setResponseTime(requiredNumber(cli, "--response-time"));
                    sla.setAvailability(requiredNumber(cli, "--availability"));
                    sla.setCost(requiredNumber(cli, "--cost"));
                    sla.setMaxRate(requiredNumber(cli, "--max-rate"));
                    s.setSla(sla);
                    AddService a = new AddService();
                    a.setService(s);
                    report(port.addService(a));
                }
                case "update" -> {
                    String name = only(cli);
                    UpdateService u = new UpdateService();
                    u.setName(name);
                    u.setEndpoint(cli.option("--endpoint"));
                    if (cli.option("--response-time") != null || cli.option("--availability") != null || cli.option("--cost") != null
                            || cli.option("--max-rate") != null) {
                        ListServices all = new ListServices();
                        ProviderSla old = port.listServices(all).getService().stream().filter(s -> s.getName().equals(name)).findFirst()
                                .map(ConcreteService::getSla).orElse(null);
                        if (old == null) CommandLine.refused("UNKNOWN_SERVICE", "no concrete service '" + name + "'");
                        ProviderSla sla = new ProviderSla();
                        sla.setResponseTime(or(cli.number("--response-time", USAGE), old.getResponseTime()));
                        sla.setAvailability(or(cli.number("--availability", USAGE), old.getAvailability()));
                        sla.setCost(or(cli.number("--cost", USAGE), old.getCost()));
                        sla.setMaxRate(or(cli.number("--max-rate", USAGE), old.getMaxRate()));
                        u.setSla(sla);
                    }
                    if (u.getEndpoint() == null && u.getSla() == null) CommandLine.fail(USAGE, "update needs --endpoint and/or an SLA value");
                    report(port.updateService(u));
                }
                case "remove" -> {
                    RemoveService r = new RemoveService();
                    r.setName(only(cli));
                    report(port.removeService(r));
                }
                default -> CommandLine.fail(USAGE, "unknown command '" + cli.command + "'");
            }
        } catch (ServiceFault_Exception e) {
            CommandLine.refused(e.getFaultInfo().getCode(), e.getFaultInfo().getMessage());
        } catch (RuntimeException e) {
            CommandLine.unreachable(broker, e);
        }
    }

    private static String only(CommandLine cli) {
        if (cli.positional.size() != 1) CommandLine.fail(USAGE, cli.command + " needs exactly one NAME");
        return cli.positional.get(0);
    }

    private static double requiredNumber(CommandLine cli, String option) {
        cli.required(option, USAGE);
        return cli.number(option, USAGE);
    }

    private static double or(Double v, double fallback) {
        return v == null ? fallback : v;
    }

    private static void report(ChangeResponse r) {
        System.out.println(r.getMessage() + (r.getService() == null ? "" : " (" + r.getService().getName() + ")"));
    }
}
