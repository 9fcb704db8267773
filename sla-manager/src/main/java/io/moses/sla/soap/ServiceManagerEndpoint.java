package io.moses.sla.soap;

import io.moses.model.ConcreteService;
import io.moses.model.PayloadMapping;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import io.moses.sla.ManagementAuthenticator;
import io.moses.sla.ServiceManager;
import io.moses.sla.SlaException;
import io.moses.sla.wsdl.services.AddService;
import io.moses.sla.wsdl.services.ChangeResponse;
import io.moses.sla.wsdl.services.ListServices;
import io.moses.sla.wsdl.services.ListServicesResponse;
import io.moses.sla.wsdl.services.RemoveService;
import io.moses.sla.wsdl.services.Rename;
import io.moses.sla.wsdl.services.ServiceFault;
import io.moses.sla.wsdl.services.ServiceFault_Exception;
import io.moses.sla.wsdl.services.ServiceManagerPort;
import io.moses.sla.wsdl.services.UpdateService;
import jakarta.annotation.Resource;
import jakarta.jws.WebService;
import jakarta.xml.ws.WebServiceContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javax.xml.namespace.QName;

/** The Service Manager over SOAP (operators only): the WSDL's operations onto {@link ServiceManager}. */
@WebService(endpointInterface = "io.moses.sla.wsdl.services.ServiceManagerPort", serviceName = "ServiceManagerService",
        portName = "ServiceManagerPort", targetNamespace = "urn:moses:service-manager",
        wsdlLocation = "classpath:io/moses/sla/ServiceManager.wsdl")
public final class ServiceManagerEndpoint implements ServiceManagerPort {
    public static final String WSDL = "classpath:io/moses/sla/ServiceManager.wsdl";
    public static final QName SERVICE = new QName("urn:moses:service-manager", "ServiceManagerService");
    public static final QName PORT = new QName("urn:moses:service-manager", "ServiceManagerPort");

    private final ServiceManager manager;
    private final ManagementAuthenticator authenticator;
    @Resource
    private WebServiceContext context;

    public ServiceManagerEndpoint(ServiceManager manager, ManagementAuthenticator authenticator) {
        this.manager = manager;
        this.authenticator = authenticator;
    }

    @Override
    public ListServicesResponse listServices(ListServices p) throws ServiceFault_Exception {
        return call(() -> {
            ListServicesResponse r = new ListServicesResponse();
            Set<TaskRef> idempotent = manager.idempotentTasks(), stateful = manager.statefulTasks();
            Map<TaskRef, io.moses.model.Callback> callbacks = manager.asynchronousTasks();
            for (ServiceManager.Listed l : manager.list(p.getComposite())) {
                io.moses.sla.wsdl.services.ConcreteService x = toWsdl(l.service());
                x.setUsed(l.used());
                traits(x, l.service().task(), idempotent, stateful, callbacks);
                r.getService().add(x);
            }
            r.setPlanVersion(manager.planVersion());
            return r;
        });
    }

    @Override
    public ChangeResponse addService(AddService p) throws ServiceFault_Exception {
        return call(() -> {
            ConcreteService service = fromWsdl(p.getService());
            // refused before anything is stored, as a bad SLA is
            Answer answer = p.getService().getCallback() == null ? null : new Answer(callback(p.getService().getCallback()));
            ServiceManager.Change added = manager.add(service);
            return change(declared(added, p.getService().isIdempotent(), p.getService().isStateful(), answer));
        });
    }

    @Override
    public ChangeResponse updateService(UpdateService p) throws ServiceFault_Exception {
        return call(() -> {
            // absent: unchanged; nil: it answers in its reply
            Answer answer = p.getCallback() == null ? null
                    : new Answer(p.getCallback().isNil() ? null : callback(p.getCallback().getValue()));
            boolean onlyFlags = (p.isIdempotent() != null || p.isStateful() != null || answer != null) && p.getEndpoint() == null
                    && p.getSla() == null && p.getMapping() == null;
            ServiceManager.Change updated = onlyFlags
                    ? new ServiceManager.Change(manager.list(null).stream().map(ServiceManager.Listed::service).filter(s -> s.name().equals(p.getName()))
                            .findFirst().orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_SERVICE, "no concrete service '" + p.getName() + "'")),
                            manager.planVersion(), "")
                    : manager.update(p.getName(), p.getEndpoint() == null ? null : ServiceManager.endpoint(p.getEndpoint()),
                            p.getSla() == null ? null : sla(p.getSla()), p.getMapping() == null ? null : mapping(p.getMapping()));
            return change(declared(updated, p.isIdempotent(), p.isStateful(), answer));
        });
    }

    /** How a task answers, as a request declares it: by {@code callback}, or in its reply (null). */
    private record Answer(io.moses.model.Callback callback) {}

    /** Says for the service's task what the traits given say (each re-planned; null: unchanged); the reply names the service. */
    private ServiceManager.Change declared(ServiceManager.Change change, Boolean idempotent, Boolean stateful, Answer answer) {
        ConcreteService service = change.service();
        if (idempotent != null) change = manager.setIdempotent(service.task(), idempotent);
        if (stateful != null) change = manager.setStateful(service.task(), stateful);
        if (answer != null) change = manager.setCallback(service.task(), answer.callback());
        return new ServiceManager.Change(service, change.planVersion(), change.message());
    }

    static io.moses.model.Callback callback(io.moses.sla.wsdl.services.Callback c) {
        return ServiceManager.callback(c.getOperation(), c.getTimeout());
    }

    /** The task's traits on a service of the WSDL: idempotent, stateful, and its callback if it is asynchronous. */
    private static void traits(io.moses.sla.wsdl.services.ConcreteService x, TaskRef task, Set<TaskRef> idempotent, Set<TaskRef> stateful,
                               Map<TaskRef, io.moses.model.Callback> callbacks) {
        x.setIdempotent(idempotent.contains(task));
        x.setStateful(stateful.contains(task));
        io.moses.model.Callback c = callbacks.get(task);
        if (c != null) {
            var w = new io.moses.sla.wsdl.services.Callback();
            w.setOperation(c.operation());
            w.setTimeout(c.timeout().toNanos() / 1e9);
            x.setCallback(w);
        }
    }

    @Override
    public ChangeResponse removeService(RemoveService p) throws ServiceFault_Exception {
        return call(() -> change(manager.remove(p.getName())));
    }

    private ChangeResponse change(ServiceManager.Change c) {
        ChangeResponse r = new ChangeResponse();
        if (c.service() != null) {
            r.setService(toWsdl(c.service()));
            traits(r.getService(), c.service().task(), manager.idempotentTasks(), manager.statefulTasks(), manager.asynchronousTasks());
        }
        r.setPlanVersion(c.planVersion());
        r.setMessage(c.message());
        return r;
    }

    static ConcreteService fromWsdl(io.moses.sla.wsdl.services.ConcreteService x) {
        if (x.getSla() == null) throw new SlaException(SlaException.Code.INVALID, "sla must be given");
        var task = ServiceManager.task(x.getComposite(), x.getTask());
        var endpoint = ServiceManager.endpoint(x.getEndpoint());
        ProviderSla sla = sla(x.getSla());
        PayloadMapping mapping = x.getMapping() == null ? PayloadMapping.IDENTITY : mapping(x.getMapping());
        return ServiceManager.build(() -> new ConcreteService(x.getName(), task, endpoint, sla, mapping));
    }

    static ProviderSla sla(io.moses.sla.wsdl.services.ProviderSla s) {
        return ServiceManager.build(() -> new ProviderSla(s.getResponseTime(), s.getAvailability(), s.getCost(), s.getMaxRate()));
    }

    static PayloadMapping mapping(io.moses.sla.wsdl.services.PayloadMapping m) {
        return new PayloadMapping(blankToNull(m.getOperation()), blankToNull(m.getSoapAction()), names(m.getRequest()), names(m.getReply()));
    }

    private static Map<String, String> names(List<Rename> renames) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Rename r : renames) {
            if (r.getFrom() == null || r.getFrom().isBlank() || r.getTo() == null || r.getTo().isBlank())
                throw new SlaException(SlaException.Code.INVALID, "a mapping rename needs from and to");
            if (out.put(r.getFrom(), r.getTo()) != null)
                throw new SlaException(SlaException.Code.INVALID, "mapping renames " + r.getFrom() + " twice");
        }
        return out;
    }

    static io.moses.sla.wsdl.services.ConcreteService toWsdl(ConcreteService s) {
        var x = new io.moses.sla.wsdl.services.ConcreteService();
        x.setName(s.name());
        x.setComposite(s.task().composite());
        x.setTask(s.task().name());
        x.setEndpoint(s.endpoint().toString());
        var sla = new io.moses.sla.wsdl.services.ProviderSla();
        sla.setResponseTime(s.sla().responseTime());
        sla.setAvailability(s.sla().availability());
        sla.setCost(s.sla().cost());
        sla.setMaxRate(s.sla().maxRate());
        x.setSla(sla);
        if (!s.mapping().isIdentity()) {
            var m = new io.moses.sla.wsdl.services.PayloadMapping();
            m.setOperation(s.mapping().operation());
            m.setSoapAction(s.mapping().soapAction());
            s.mapping().requestNames().forEach((from, to) -> m.getRequest().add(rename(from, to)));
            s.mapping().replyNames().forEach((from, to) -> m.getReply().add(rename(from, to)));
            x.setMapping(m);
        }
        return x;
    }

    private static Rename rename(String from, String to) {
        Rename r = new Rename();
        r.setFrom(from);
        r.setTo(to);
        return r;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** Every operation is an operator's; a refusal becomes a {@link ServiceFault}. */
    private <T> T call(Supplier<T> body) throws ServiceFault_Exception {
        return SoapCalls.refusingWith(ServiceManagerEndpoint::fault, () -> {
            SoapCalls.operator(authenticator, context);
            return body.get();
        });
    }

    private static ServiceFault_Exception fault(String reason, SlaException e) {
        ServiceFault f = new ServiceFault();
        f.setCode(e.code().name());
        f.setMessage(e.getMessage());
        return new ServiceFault_Exception(reason, f);
    }
}
