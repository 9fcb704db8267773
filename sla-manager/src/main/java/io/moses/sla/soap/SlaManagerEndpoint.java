package io.moses.sla.soap;

import io.moses.model.ServiceClass;
import io.moses.model.User;
import io.moses.sla.Accounts;
import io.moses.sla.ManagementAuthenticator;
import io.moses.sla.SlaException;
import io.moses.sla.SlaManager;
import io.moses.sla.wsdl.sla.Cancel;
import io.moses.sla.wsdl.sla.CancelResponse;
import io.moses.sla.wsdl.sla.ChangePassword;
import io.moses.sla.wsdl.sla.ChangePasswordResponse;
import io.moses.sla.wsdl.sla.ChangeSubscription;
import io.moses.sla.wsdl.sla.ChangeSubscriptionResponse;
import io.moses.sla.wsdl.sla.CounterOffer;
import io.moses.sla.wsdl.sla.GetClasses;
import io.moses.sla.wsdl.sla.GetClassesResponse;
import io.moses.sla.wsdl.sla.ServiceClassOffer;
import io.moses.sla.wsdl.sla.SlaFault;
import io.moses.sla.wsdl.sla.SlaFault_Exception;
import io.moses.sla.wsdl.sla.SlaManagerPort;
import io.moses.sla.wsdl.sla.Subscribe;
import io.moses.sla.wsdl.sla.SubscribeResponse;
import io.moses.sla.wsdl.sla.SubscriptionResult;
import jakarta.annotation.Resource;
import jakarta.jws.WebService;
import jakarta.xml.ws.WebServiceContext;
import java.util.function.Supplier;
import javax.xml.namespace.QName;

/** The SLA Manager over SOAP: the WSDL's operations onto {@link SlaManager}, refusals onto faults. */
@WebService(endpointInterface = "io.moses.sla.wsdl.sla.SlaManagerPort", serviceName = "SlaManagerService",
        portName = "SlaManagerPort", targetNamespace = "urn:moses:sla-manager", wsdlLocation = "classpath:io/moses/sla/SlaManager.wsdl")
public final class SlaManagerEndpoint implements SlaManagerPort {
    public static final String WSDL = "classpath:io/moses/sla/SlaManager.wsdl";
    public static final QName SERVICE = new QName("urn:moses:sla-manager", "SlaManagerService");
    public static final QName PORT = new QName("urn:moses:sla-manager", "SlaManagerPort");

    private final SlaManager manager;
    private final ManagementAuthenticator authenticator;
    private final Accounts accounts;
    @Resource
    private WebServiceContext context;

    public SlaManagerEndpoint(SlaManager manager, ManagementAuthenticator authenticator, Accounts accounts) {
        this.manager = manager;
        this.authenticator = authenticator;
        this.accounts = accounts;
    }

    @Override
    public GetClassesResponse getClasses(GetClasses parameters) throws SlaFault_Exception {
        return call(() -> {
            GetClassesResponse r = new GetClassesResponse();
            for (SlaManager.ClassOffer o : manager.classes()) {
                ServiceClass k = o.serviceClass();
                ServiceClassOffer x = new ServiceClassOffer();
                x.setName(k.name());
                x.setMaxResponseTime(k.maxResponseTime());
                x.setMinAvailability(k.minAvailability());
                x.setMaxCost(k.maxCost());
                x.setPrice(k.price());
                x.setAdmissibleRate(o.admissibleRate());
                r.getServiceClass().add(x);
            }
            r.setPlanVersion(manager.planVersion());
            return r;
        });
    }

    @Override
    public SubscribeResponse subscribe(Subscribe p) throws SlaFault_Exception {
        return call(() -> {
            User caller = manager.registration() == SlaManager.Registration.OPEN ? null : SoapCalls.operator(authenticator, context);
            SubscribeResponse r = new SubscribeResponse();
            r.setResult(result(manager.subscribe(caller, p.getUser(), p.getPassword(), p.getServiceClass(), p.getRate())));
            return r;
        });
    }

    @Override
    public ChangeSubscriptionResponse changeSubscription(ChangeSubscription p) throws SlaFault_Exception {
        return call(() -> {
            User caller = SoapCalls.caller(authenticator, context);
            ChangeSubscriptionResponse r = new ChangeSubscriptionResponse();
            r.setResult(result(manager.change(caller, p.getUser(), p.getServiceClass(), p.getRate())));
            return r;
        });
    }

    @Override
    public CancelResponse cancel(Cancel p) throws SlaFault_Exception {
        return call(() -> {
            User caller = SoapCalls.caller(authenticator, context);
            String user = p.getUser() == null || p.getUser().isBlank() ? caller.name() : p.getUser();
            CancelResponse r = new CancelResponse();
            r.setPlanVersion(manager.cancel(caller, p.getUser()));
            r.setUser(user);
            return r;
        });
    }

    @Override
    public ChangePasswordResponse changePassword(ChangePassword p) throws SlaFault_Exception {
        return call(() -> {
            User caller = SoapCalls.caller(authenticator, context);
            ChangePasswordResponse r = new ChangePasswordResponse();
            r.setUser(accounts.changePassword(caller, p.getUser(), p.getNewPassword()));
            return r;
        });
    }

    private static SubscriptionResult result(SlaManager.Subscription s) {
        SubscriptionResult r = new SubscriptionResult();
        r.setAccepted(s.accepted());
        r.setUser(s.user());
        r.setServiceClass(s.serviceClass());
        r.setRate(s.rate());
        r.setPlanVersion(s.planVersion());
        r.setReason(s.reason());
        for (SlaManager.CounterOffer o : s.counterOffers()) {
            CounterOffer c = new CounterOffer();
            c.setServiceClass(o.serviceClass());
            c.setRate(o.rate());
            r.getCounterOffer().add(c);
        }
        return r;
    }

    private static <T> T call(Supplier<T> body) throws SlaFault_Exception {
        return SoapCalls.refusingWith(SlaManagerEndpoint::fault, body);
    }

    private static SlaFault_Exception fault(String reason, SlaException e) {
        SlaFault f = new SlaFault();
        f.setCode(e.code().name());
        f.setMessage(e.getMessage());
        return new SlaFault_Exception(reason, f);
    }
}
