package io.moses.core;

import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.OperatorFilter;
import io.moses.mdal.KnowledgeBase;
import io.moses.optimizer.OptimizationEngine;
import io.moses.sla.ClassManager;
import io.moses.sla.ManagementAuthenticator;
import io.moses.sla.Planning;
import io.moses.sla.ServiceManager;
import io.moses.sla.SlaManager;
import io.moses.sla.http.ClassesServlet;
import io.moses.sla.http.ServiceManagerServlet;
import io.moses.sla.http.SubscriptionsServlet;
import io.moses.sla.soap.ServiceManagerEndpoint;
import io.moses.sla.soap.SlaManagerEndpoint;

/** The SLA Manager's and the Service Manager's endpoints on a replica's HTTP front-end. */
final class Management {
    private Management() {}

    /**
     * The SLA Manager at /manage/sla (admission on its own optimizer instance: it works with the
     * loop's off too) and /admin/subscriptions (JSON, for the console), the Service Manager (the
     * register of concrete services) at /manage/services and /admin/services (JSON), the classes at /admin/classes,
     * passwords at /admin/users/USER/password.
     */
    static void start(HttpFrontEnd http, KnowledgeBase kb, BrokerConfig config, Planning planning, java.time.Clock wall,
                      io.moses.model.auth.LoginThrottle logins, io.moses.sla.Accounts accounts) {
        OptimizationEngine admission = new OptimizationEngine(OptimizationEngine.SolverChoice.parse(config.adaptation().solver()));
        ManagementAuthenticator callers = new ManagementAuthenticator(kb, logins);
        SlaManager sla = new SlaManager(kb, admission, planning,
                config.openRegistration() ? SlaManager.Registration.OPEN : SlaManager.Registration.CLOSED, config.registrationCap(), wall);
        http.publishManagement("/sla", new SlaManagerEndpoint(sla, callers, accounts), SlaManagerEndpoint.WSDL, SlaManagerEndpoint.SERVICE,
                SlaManagerEndpoint.PORT);
        ServiceManager services = new ServiceManager(kb, planning);
        http.publishManagement("/services", new ServiceManagerEndpoint(services, callers), ServiceManagerEndpoint.WSDL,
                ServiceManagerEndpoint.SERVICE, ServiceManagerEndpoint.PORT);
        ServiceManagerServlet serviceManagerServlet = new ServiceManagerServlet(services);
        ClassesServlet classesServlet = new ClassesServlet(new ClassManager(kb, admission, planning));
        SubscriptionsServlet subscriptionsServlet = new SubscriptionsServlet(sla,
                req -> (io.moses.model.User) req.getAttribute(OperatorFilter.USER_ATTRIBUTE));
        http.mount("/admin/services", serviceManagerServlet); // not /admin/concrete-services: the admin API's live view
        http.mount("/admin/services/*", serviceManagerServlet);
        http.mount("/admin/classes", classesServlet); // GET as before, plus subscribers; POST, PUT, DELETE
        http.mount("/admin/classes/*", classesServlet);
        http.mount("/admin/subscriptions", subscriptionsServlet); // the SLA Manager's Subscribe and ChangeSubscription, for the console
        http.mount("/admin/subscriptions/*", subscriptionsServlet);
        http.mount("/admin/users/*", new io.moses.sla.http.UsersServlet(accounts,
                req -> (io.moses.model.User) req.getAttribute(OperatorFilter.USER_ATTRIBUTE))); // PUT .../USER/password
    }
}
