package io.moses.core;

import io.moses.core.frontend.HttpFrontEnd;
import io.moses.mdal.KnowledgeBase;
import io.moses.optimizer.OptimizationEngine;
import io.moses.sla.Callers;
import io.moses.sla.Planning;
import io.moses.sla.ServiceManager;
import io.moses.sla.ServiceManagerEndpoint;
import io.moses.sla.ServicesServlet;
import io.moses.sla.SlaManager;
import io.moses.sla.SlaManagerEndpoint;

/** The SLA Manager's and the Service Manager's endpoints on a replica's HTTP front-end. */
final class Management {
    private Management() {}

    /**
     * The SLA Manager at /manage/sla (admission on its own optimizer instance: it works with the
     * loop's off too) and the Service Manager at /manage/services and /admin/services (JSON).
     */
    static void start(HttpFrontEnd http, KnowledgeBase kb, BrokerConfig config, Planning planning) {
        OptimizationEngine admission = new OptimizationEngine(OptimizationEngine.SolverChoice.parse(config.adaptation().solver()));
        Callers callers = new Callers(kb);
        SlaManager sla = new SlaManager(kb, admission, planning,
                config.openRegistration() ? SlaManager.Registration.OPEN : SlaManager.Registration.CLOSED);
        http.publishManagement("/sla", new SlaManagerEndpoint(sla, callers), SlaManagerEndpoint.WSDL, SlaManagerEndpoint.SERVICE,
                SlaManagerEndpoint.PORT);
        ServiceManager services = new ServiceManager(kb, planning);
        http.publishManagement("/services", new ServiceManagerEndpoint(services, callers), ServiceManagerEndpoint.WSDL,
                ServiceManagerEndpoint.SERVICE, ServiceManagerEndpoint.PORT);
        ServicesServlet servicesServlet = new ServicesServlet(services);
        io.moses.sla.ClassesServlet classesServlet = new io.moses.sla.ClassesServlet(new io.moses.sla.ClassManager(kb, admission, planning));
        http.mount("/admin/services", servicesServlet);
        http.mount("/admin/services/*", servicesServlet);
        http.mount("/admin/classes", classesServlet); // GET as before, plus subscribers; POST, PUT, DELETE
        http.mount("/admin/classes/*", classesServlet);
    }
}
