package io.moses.bpel;

import static io.moses.bpel.Units.BPEL;
import static io.moses.bpel.Units.SOAP;
import static io.moses.bpel.Units.WSDL;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dd.DeployDocument;
import org.apache.ode.bpel.dd.TDeployment;
import org.apache.ode.bpel.dd.TInvoke;
import org.apache.ode.bpel.dd.TProvide;
import org.apache.ode.bpel.dd.TService;
import org.apache.xmlbeans.XmlError;
import org.apache.xmlbeans.XmlOptions;
import org.w3c.dom.Element;

/**
 * What ODE's compiler does not check about a deployment unit but its deployment needs:
 * deploy.xml valid against ODE's schema, naming a process some .bpel defines, assigning every
 * partner link of it exactly once (provide for myRole, invoke for partnerRole) to a WSDL
 * service port that has a SOAP address.
 */
final class UnitCheck {
    private UnitCheck() {}

    static List<String> problems(Path unit) throws Exception {
        List<String> problems = new ArrayList<>();
        XmlOptions options = new XmlOptions().setLoadUseDefaultResolver();
        DeployDocument dd = DeployDocument.Factory.parse(unit.resolve("deploy.xml").toFile(), options);
        List<XmlError> errors = new ArrayList<>();
        if (!dd.validate(new XmlOptions().setErrorListener(errors)))
            errors.forEach(e -> problems.add("deploy.xml: " + e.getMessage()));

        Map<QName, Element> processes = new HashMap<>();
        for (Path bpel : ProcessCompiler.list(unit, ".bpel")) {
            Element p = Units.parse(bpel).getDocumentElement();
            processes.put(new QName(p.getAttribute("targetNamespace"), p.getAttribute("name")), p);
        }
        Map<QName, Map<String, String>> addresses = new HashMap<>(); // service -> port -> soap:address
        for (Path wsdl : ProcessCompiler.list(unit, ".wsdl")) {
            Element defs = Units.parse(wsdl).getDocumentElement();
            String tns = defs.getAttribute("targetNamespace");
            for (Element service : Units.children(defs, WSDL, "service")) {
                Map<String, String> ports = addresses.computeIfAbsent(new QName(tns, service.getAttribute("name")), k -> new HashMap<>());
                for (Element port : Units.children(service, WSDL, "port")) {
                    List<Element> address = Units.children(port, SOAP, "address");
                    ports.put(port.getAttribute("name"), address.isEmpty() ? null : address.get(0).getAttribute("location"));
                }
            }
        }

        for (TDeployment.Process dp : dd.getDeploy().getProcessArray()) {
            Element process = processes.get(dp.getName());
            if (process == null) {
                problems.add("deploy.xml names process " + dp.getName() + " but no .bpel defines it (found " + processes.keySet() + ")");
                continue;
            }
            Map<String, Integer> provided = new HashMap<>();
            Map<String, Integer> invoked = new HashMap<>();
            for (TProvide p : dp.getProvideArray()) {
                provided.merge(p.getPartnerLink(), 1, Integer::sum);
                checkService(p.getService(), "provide " + p.getPartnerLink(), addresses, problems);
            }
            for (TInvoke i : dp.getInvokeArray()) {
                invoked.merge(i.getPartnerLink(), 1, Integer::sum);
                checkService(i.getService(), "invoke " + i.getPartnerLink(), addresses, problems);
            }
            for (Element link : Units.all(process, BPEL, "partnerLink")) {
                String name = link.getAttribute("name");
                if (!link.getAttribute("myRole").isEmpty() && provided.getOrDefault(name, 0) != 1)
                    problems.add("partner link " + name + " (myRole) needs exactly one <provide> in deploy.xml, has " + provided.getOrDefault(name, 0));
                if (!link.getAttribute("partnerRole").isEmpty() && invoked.getOrDefault(name, 0) != 1)
                    problems.add("partner link " + name + " (partnerRole) needs exactly one <invoke> in deploy.xml, has " + invoked.getOrDefault(name, 0));
            }
        }
        return problems;
    }

    private static void checkService(TService service, String what, Map<QName, Map<String, String>> addresses, List<String> problems) {
        if (service == null) {
            problems.add(what + ": no <service>");
            return;
        }
        Map<String, String> ports = addresses.get(service.getName());
        if (ports == null) problems.add(what + ": no WSDL defines service " + service.getName());
        else if (!ports.containsKey(service.getPort())) problems.add(what + ": service " + service.getName() + " has no port " + service.getPort());
        else if (ports.get(service.getPort()) == null || ports.get(service.getPort()).isBlank())
            problems.add(what + ": port " + service.getPort() + " has no soap:address");
    }
}
