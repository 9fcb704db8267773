package io.moses.core.engine;

import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.InvokeOutcome;
import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.adaptation.InvokeOutcome.InvokeFault;
import io.moses.adaptation.InvokeOutcome.InvokeReply;
import io.moses.adaptation.Invocation;
import io.moses.adaptation.InvokeTrace;
import io.moses.adaptation.SoapVersion;
import java.net.URI;
import java.util.function.Supplier;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dao.MessageExchangeDAO;
import org.apache.ode.bpel.engine.BpelServerImpl;
import org.apache.ode.bpel.engine.PartnerRoleMessageExchangeImpl;
import org.apache.ode.bpel.iapi.Message;
import org.apache.ode.bpel.iapi.MessageExchange;
import org.apache.ode.bpel.iapi.MessageExchangeContext;
import org.apache.ode.bpel.iapi.MyRoleMessageExchange;
import org.apache.ode.bpel.iapi.PartnerRoleMessageExchange;
import org.apache.ode.bpel.iapi.Scheduler;
import org.apache.ode.utils.DOMUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Where ODE's partner invokes leave the engine: each becomes an {@link Invocation} for the
 * {@link InvokeHandler}, answered asynchronously so that a flow's invokes overlap and no
 * engine thread waits on the network.
 */
final class PartnerInvoker implements MessageExchangeContext {
    private static final Logger log = LoggerFactory.getLogger(PartnerInvoker.class);

    private final InvokeHandler handler;
    private final Scheduler scheduler;
    private final Supplier<BpelServerImpl> server;
    private final Callers callers;
    private final CallNumbers numbers;
    private final java.util.concurrent.Executor replies;
    private final java.util.function.BooleanSupplier inTransaction;
    private final Supplier<io.moses.core.tracing.Tracing> tracing;

    /**
     * @param replies       where replies are handed back to the engine when the thread that
     *                      completed the call is inside a transaction (a call that fails at once
     *                      completes in the engine's {@code afterCompletion}); otherwise the
     *                      completing thread delivers the reply itself (no hand-off)
     * @param inTransaction whether the current thread is inside a transaction
     */
    /**
     * @param numbers makes asynchronous calls' numbers, credentials of their callbacks; null: random numbers
     * @param tracing the traces each invoke is told to, as a child of its request's span (read per invoke: set after start)
     */
    PartnerInvoker(InvokeHandler handler, Scheduler scheduler, Supplier<BpelServerImpl> server, Callers callers,
                   java.util.concurrent.Executor replies, java.util.function.BooleanSupplier inTransaction, CallNumbers numbers,
                   Supplier<io.moses.core.tracing.Tracing> tracing) {
        this.tracing = tracing;
        this.numbers = numbers;
        this.replies = replies;
        this.inTransaction = inTransaction;
        this.handler = handler;
        this.scheduler = scheduler;
        this.server = server;
        this.callers = callers;
    }

    @Override
    public void invokePartner(PartnerRoleMessageExchange mex) {
        MessageExchangeDAO dao = ((PartnerRoleMessageExchangeImpl) mex).getDAO();
        String partnerLink = dao.getPartnerLink().getPartnerLinkName();
        Long instance = dao.getInstance() == null ? null : dao.getInstance().getInstanceId();
        Endpoints.Channel channel = (Endpoints.Channel) mex.getChannel();
        SoapBinding binding = channel.binding;
        SoapBinding.OperationBinding op = binding.operation(mex.getOperation().getName());
        if (op == null) {
            mex.replyWithFailure(MessageExchange.FailureType.OTHER, "the WSDL binding of partner link " + partnerLink
                    + " has no operation " + mex.getOperation().getName(), null);
            return;
        }
        if (mex.getEndpointReference() instanceof Endpoints.Unsupported u) {
            // The process sees bpel:unsupportedReference. ODE needs a fault message of a type the
            // process knows: an empty one of the operation's input type.
            Message none = mex.createMessage(mex.getOperation().getInput().getMessage().getQName());
            Document doc = DOMUtils.newDocument();
            doc.appendChild(doc.createElementNS(null, "message"));
            none.setMessage(doc.getDocumentElement());
            try (var ids = io.moses.core.tracing.Tracing.logged(callers.traceOf(instance))) { // an engine thread: the request's ids
                log.info("{}: {} is not a partner reference the broker can call", partnerLink, u.reason());
            }
            mex.replyWithFault(Endpoints.UNSUPPORTED_REFERENCE, none);
            return;
        }
        Element body = binding.toBody(op, mex.getRequest().getMessage(), true);
        Endpoints.Address epr = mex.getEndpointReference() instanceof Endpoints.Address a ? a : new Endpoints.Address(binding.address);
        URI target = binding.targetOf(epr.url()); // parsing the address per invoke was ~1 % of the CPU
        Invocation unbound = new Invocation(channel.task(partnerLink, op.name()), callers.classOf(instance),
                op.soapAction(), body, target, binding.soap12 ? SoapVersion.SOAP_12 : SoapVersion.SOAP_11);
        boolean twoWay = mex.getMessageExchangePattern() == MessageExchange.MessageExchangePattern.REQUEST_RESPONSE;
        if (!twoWay && channel.replyBase() != null && handler.answersLater(unbound.task())) {
            // its callback names this call, and with it the conversation's user, whose credentials the provider need not have
            String composite = unbound.task().composite(), user = instance == null ? null : callers.starterOf(instance);
            unbound = unbound.withReplyTo(numbers == null ? io.moses.adaptation.ReplyTo.at(channel.replyBase())
                    : new io.moses.adaptation.ReplyTo(channel.replyBase(), () -> numbers.mint(composite, user)));
        }
        Invocation bound = handler.stateful(unbound.task()) ? conversationWithProvider(dao.getPartnerLink(), unbound) : unbound;
        io.moses.core.tracing.Tracing traces = tracing.get();
        InvokeTrace trace = traces.on() ? traces.invoke(callers.traceOf(instance), bound) : InvokeTrace.NONE;
        Invocation invocation = trace == InvokeTrace.NONE ? bound : bound.withTrace(trace);
        callers.invoked(instance, invocation.task());
        String mexId = mex.getMessageExchangeId();

        // Send only once the engine has committed the invoke: a reply must never overtake it.
        scheduler.registerSynchronizer(new Scheduler.Synchronizer() {
            @Override
            public void afterCompletion(boolean success) {
                if (!success) {
                    trace.ended(new InvokeFailure(invocation.task() + ": not sent, the engine's transaction did not commit", java.util.List.of()));
                    return;
                }
                handler.invoke(invocation).whenComplete((outcome, error) -> {
                    InvokeOutcome result = error == null ? outcome
                            : new InvokeFailure(invocation.task() + ": " + error, java.util.List.of());
                    trace.ended(result);
                    if (!twoWay) {
                        if (outcome != null && instance != null) handler.sent(instance, invocation, outcome);
                        return;
                    }
                    if (inTransaction.getAsBoolean()) replies.execute(() -> reply(mexId, binding, op, result, trace));
                    else reply(mexId, binding, op, result, trace);
                });
            }

            @Override
            public void beforeCompletion() {}
        });
        if (twoWay) mex.replyAsync();
        else mex.replyOneWayOk();
    }

    /**
     * A stateful partner's call goes to the provider its instance's first call on the partner
     * link went to. That provider is kept on the instance's partner link, as ODE keeps a
     * partner's session there: with a durable instance it is written in the invoke's own
     * transaction, so it survives a restart and moves with a takeover.
     */
    private Invocation conversationWithProvider(org.apache.ode.bpel.dao.PartnerLinkDAO link, Invocation invocation) {
        String session = link.getPartnerSessionId();
        if (session != null && session.startsWith(PROVIDER)) return invocation.withProvider(URI.create(session.substring(PROVIDER.length())));
        URI provider = handler.provider(invocation);
        if (provider == null) return invocation;
        link.setPartnerSessionId(PROVIDER + provider);
        return invocation.withProvider(provider);
    }

    /** How a partner link's session names the provider of a stateful partner. */
    private static final String PROVIDER = "moses-provider:";

    private void reply(String mexId, SoapBinding binding, SoapBinding.OperationBinding op, InvokeOutcome outcome, InvokeTrace trace) {
        // a client's or the engine's thread: what delivering the reply logs names the invoke's request
        try (InvokeTrace.Scope ids = trace.logged()) {
            try {
                scheduler.execTransaction(() -> {
                    PartnerRoleMessageExchange mex = (PartnerRoleMessageExchange) server.get().getEngine().getMessageExchange(mexId);
                    deliver(mex, binding, op, outcome);
                    return null;
                });
            } catch (Exception e) {
                log.error("reply to {} lost: {}", op.name(), e.toString());
            }
        }
    }

    private static void deliver(PartnerRoleMessageExchange mex, SoapBinding binding, SoapBinding.OperationBinding op,
                                InvokeOutcome outcome) {
        if (outcome instanceof InvokeReply r) {
                Message msg = mex.createMessage(op.operation().getOutput().getMessage().getQName());
                try {
                    msg.setMessage(binding.toOdeMessage(op, r.body(), false));
                } catch (IllegalArgumentException e) {
                    mex.replyWithFailure(MessageExchange.FailureType.FORMAT_ERROR,
                            "reply of " + r.answeredBy() + " to " + op.name() + " is not what the WSDL says: " + e.getMessage(), null);
                    return;
                }
                mex.reply(msg);
        } else if (outcome instanceof InvokeFault f) {
                String faultName = binding.faultNameFor(op, f.detail());
                if (faultName != null) {
                    javax.wsdl.Fault wf = op.operation().getFault(faultName);
                    Message msg = mex.createMessage(wf.getMessage().getQName());
                    Document doc = DOMUtils.newDocument();
                    Element m = doc.createElementNS(null, "message");
                    doc.appendChild(m);
                    String part = (String) wf.getMessage().getParts().keySet().iterator().next();
                    Element partEl = doc.createElementNS(null, part);
                    partEl.appendChild(io.moses.adaptation.Xml.importElement(doc, f.detail()));
                    m.appendChild(partEl);
                    msg.setMessage(m);
                    mex.replyWithFault(new QName(mex.getPortType().getQName().getNamespaceURI(), faultName), msg);
                } else {
                    mex.replyWithFailure(MessageExchange.FailureType.OTHER,
                            f.answeredBy() + " answered " + op.name() + " with a SOAP fault: " + f.reason(), null);
                }
        } else if (outcome instanceof InvokeFailure f) {
            mex.replyWithFailure(MessageExchange.FailureType.COMMUNICATION_ERROR, f.reason(), null);
        }
    }

    @Override
    public void onAsyncReply(MyRoleMessageExchange myRoleMex) {
        // Replies to the front-end are awaited through the invoke's future.
    }
}
