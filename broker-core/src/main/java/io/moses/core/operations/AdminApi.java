package io.moses.core.operations;

import io.moses.core.frontend.RatePolicing;
import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.LiveView;
import io.moses.mdal.KnowledgeBase;
import io.moses.model.Plan;
import jakarta.servlet.http.HttpServlet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The admin API of one replica ({@code /admin/*}, behind the operator check): what it shows of
 * the knowledge base, the monitors and the optimizer, and the operator's actions, which are the
 * cluster's ({@link OperatorActions}). The console and {@code moses admin} act through it only.
 */
public final class AdminApi {
    private final Supplier<Plan> plan;
    private final KnowledgeBase kb;
    private final FeedbackLoop loop;
    private final OperatorActions operatorActions;
    private final RatePolicing policing;
    private final java.time.Clock wall;

    /**
     * @param plan the plan in force on this replica
     * @param wall the broker's wall clock, the one plans and SLA events are stamped on
     */
    public AdminApi(Supplier<Plan> plan, KnowledgeBase kb, FeedbackLoop loop, OperatorActions operatorActions, RatePolicing policing,
                    java.time.Clock wall) {
        this.wall = wall;
        this.plan = plan;
        this.kb = kb;
        this.loop = loop;
        this.operatorActions = operatorActions;
        this.policing = policing;
    }

    /**
     * {@code /admin/*}: the Service Manager's {@code /admin/services} (the register of concrete
     * services, where this servlet's {@code /admin/concrete-services} is their live view), {@code
     * /admin/classes} and {@code /admin/processes} are mounted beside it.
     */
    public HttpServlet servlet() {
        return new AdminServlet(plan, kb, operations(), wall);
    }

    /** What the admin API asks of this replica (its console and moses admin act through it). */
    private AdminOperations operations() {
        return new AdminOperations() {
            @Override
            public LiveView live() {
                return loop == null ? LiveView.EMPTY : loop.live();
            }

            @Override
            public Map<String, Object> adaptation() {
                return loop == null ? Map.of() : loop.status();
            }

            @Override
            public Map<String, Boolean> monitors() {
                return operatorActions.monitors();
            }

            @Override
            public void monitor(String name, boolean on, String operator) {
                operatorActions.monitor(name, on, operator);
            }

            @Override
            public String replan(String why) {
                return operatorActions.replan(why);
            }

            @Override
            public boolean holdOut(String service, boolean out, String operator) {
                return operatorActions.holdOut(service, out, operator);
            }

            @Override
            public Map<String, Object> policing(String serviceClass) {
                return policing == null ? Map.of() : policing.describe(serviceClass);
            }

            @Override
            public Map<String, Object> whatIf(List<WhatIfChange> changes) {
                if (loop == null) throw new IllegalStateException("the optimizer is off: no what-if");
                List<io.moses.model.User> users = kb.users();
                return loop.whatIf(in -> WhatIf.answer(changes, in, users, plan.get(), loop::planOnly, loop::admissibleRate));
            }
        };
    }
}
