/**
 * The broker's integration with Apache ODE 1.3.7's internals, all in this module
 * ({@code ode-integration}): this package holds the broker's own variable store, how ODE
 * parses literals and the expressions evaluated without Jaxen; the classes of
 * ours that must sit in ODE's packages (because what they reach is package-private) are
 * {@code org.apache.ode.bpel.memdao.InMemoryProcesses}, {@code InMemoryInstance} and
 * {@code ConversationCorrelator}; {@code org.apache.ode.bpel.engine.BrokerBpelServer},
 * {@code BrokerBpelProcess}, {@code BrokerRuntimeContext}, {@code ResponseWaiters},
 * {@code IncomingCorrelation} and {@code RunningConversations};
 * {@code org.apache.ode.scheduler.simple.InstanceOrderedScheduler} and {@code InMemoryJobStore}.
 * None of them has the name of a class of ODE's: nothing is replaced, and the order of the class
 * path does not matter. ODE is retired upstream (1.3.7 is its last release), so these internals
 * will not move under us; an upgrade would have to check each one.
 *
 * <h2>The variable store: the DAO chain ODE offers</h2>
 * The broker hands {@code InMemoryProcesses} to {@code BpelServerImpl.setDaoConnectionFactory}
 * and {@code setInMemDaoConnectionFactory}; its processes create {@code InMemoryInstance}s, whose
 * scopes create {@link io.moses.ode.VariableStore}s. {@code BpelEngine.start} probes that chain
 * ({@link io.moses.ode.VariableStore#requireUsedBy}) and refuses to start on any other store;
 * it logs "variables in io.moses.ode.VariableStore" when it has started.
 *
 * <h2>Variables read without a copy: the factories ODE offers</h2>
 * The broker's ODE server is {@code BrokerBpelServer} ({@code BpelServerImpl}'s
 * {@code createBpelProcess} makes its processes), whose processes run instances in a
 * {@code BrokerRuntimeContext} ({@code BpelProcess}'s {@code createRuntimeContext}): a variable
 * read only to be looked at is handed out as stored ({@link io.moses.ode.VariableStore#peek()}),
 * one read to be changed (an assign's target) is changed in place when its store alone holds
 * the document and no copy of the process can fault after it started changing its target
 * ({@link io.moses.ode.VariableStore#getForChange()}, {@link io.moses.ode.ChangesInPlace}), and
 * copied otherwise; a message that leaves the instance is copied where it leaves.
 * {@code VariablesTest} (broker-core) checks that no variable sees another's change. An event
 * the process's configuration leaves out is dropped before ODE fills it in
 * ({@code BrokerRuntimeContext.sendEvent}; a scope's state is still recorded). A new instance's
 * JACOB execution queue is a {@link io.moses.ode.BrokerExecutionQueue}, whose channel listeners
 * share their class's set of methods instead of each copying it by reflection. The instance's
 * activities evaluate their expressions through {@link io.moses.ode.PathExpressions}, which
 * evaluates the simplest XPath 1.0 forms (a variable, child steps below it, {@code string()} of
 * such a path, a literal) on the DOM and hands every other expression to ODE's registry.
 *
 * <h2>Every ODE internal relied on, and why</h2>
 * <ul>
 * <li>memdao: {@code BpelDAOConnectionFactoryImpl} and {@code BpelDAOConnectionImpl} (its
 *     package-private constructor, {@code defer}, {@code onRollback}): extended, to create our
 *     processes; {@code ProcessDaoImpl} (package-private constructor, the protected
 *     {@code _instances} and {@code _instancesAge}, {@code _correlators},
 *     {@code discardOldInstances()}): extended, to create our instances as ODE does and to answer
 *     {@code findInstance(key, state)}, which ODE's returns null for;
 *     {@code ProcessInstanceDaoImpl} (package-private constructor; ODE's runtime casts an
 *     in-memory instance to it for its execution state, so ours must extend it): extended,
 *     overriding every method that reads its private scope maps, since only its own
 *     {@code createScope} fills them; {@code ScopeDaoImpl} (package-private class, public
 *     constructor): extended, to give variables our store; {@code CorrelatorDaoImpl}
 *     (package-private constructor, {@code _removeRoutes}), {@code MessageRouteDaoImpl}
 *     (constructor, {@code _instance}, {@code _groupId}, {@code _ckeySet}) and
 *     {@code ProcessInstanceDaoImpl.removeRoutes}: a correlator whose routes and queued messages
 *     change under one lock.</li>
 * <li>engine: {@code MyRoleMessageExchangeImpl._waitingCallbacks} and its package-private
 *     {@code ResponseCallback} ({@code responseReceived}, {@code waitResponse}): wake the
 *     waiter of a request whose instance failed, and park waiters on a latch instead of a
 *     monitor; {@code BpelEngineImpl._activeProcesses} (public field, no accessor): the active
 *     process of a service, and the versions still registered; {@code BpelProcess._pconf},
 *     {@code extractProperty} (package-private), {@code getProcessDAO}, {@code isInMemory}: a
 *     message's correlation keys computed as ODE computes them, before the engine sees the
 *     message; {@code PartnerLinkMyRoleImpl} (package-private constructor, {@code findRoute},
 *     {@code noRoutingMatch}, {@code RoutingInfo}): queue a conversation's next message for its
 *     running instance; {@code MyRoleMessageExchangeImpl.getDAO} and
 *     {@code PartnerRoleMessageExchangeImpl.getDAO} (used by {@code io.moses.core.engine}): the
 *     exchange's instance and stored messages.</li>
 * <li>engine, for the reads without a copy: {@code BpelServerImpl.createBpelProcess} and
 *     {@code BpelProcess.createRuntimeContext} (protected factories), {@code BpelProcess}'s public
 *     constructor and {@code getOProcess}, {@code BpelRuntimeContextImpl}'s public constructor,
 *     its protected {@code _dao}, {@code _bpelProcess} and {@code buildOutgoingMessage} (which
 *     removes header parts from the message it is given), {@code readVariable} (whose
 *     {@code forWriting} ODE's engine sets for an assign's target and nothing else) and
 *     {@code writeVariable} (whose result ODE 1.3.7's callers ignore; its private
 *     {@code writeProperties} is done again by ours, with the package-private
 *     {@code BpelProcess.extractProperty}); every reader in ODE's runtime was checked not to
 *     change what it reads, but {@code ASSIGN} declaring on an element its expression selected the
 *     namespaces in scope there (the same document, in XML's terms), and {@code ASSIGN}'s target,
 *     read for writing, changed and written back: in ODE 1.3.7 a copy changes its target after
 *     every step that can fault but for an {@code insertMissingToData} copy and one into an
 *     untyped (header) part, read from the compiled model ({@code OProcess.getChildren},
 *     {@code OAssign.Copy}'s public fields, {@code OScope.Variable.extVar}); the whole-message
 *     copy ({@code initializeVariable} with another variable's value) is the one way a value
 *     reaches a second store.</li>
 * <li>engine, for events: {@code BpelRuntimeContextImpl.sendEvent} (public, overridden), which
 *     fills an event in, shows it to ODE's debugger and marks the process used before it asks
 *     the configuration; {@code ScopeEvent.getParentScopesNames}, {@code ScopeDAO.setState} (what
 *     ODE's private {@code saveScopeState} does).</li>
 * <li>engine and JACOB, for the listeners' methods: {@code BpelRuntimeContextImpl}'s protected
 *     {@code _soup} and {@code _vpu} (a new instance's queue is replaced before anything is
 *     injected into it: the constructor is given no template, and ours injects it after),
 *     {@code BpelProcess.getReplacementMap} and {@code isInMemory},
 *     {@code ProcessInstanceDaoImpl.getSoup} (an in-memory instance's queue, null until its first
 *     run ended); {@code ExecutionQueueImpl.add(CommGroup)} (public, overridden), the public
 *     {@code CommGroup.getElements} and {@code CommRecv.getContinuation}; and
 *     {@code ChannelListener._implementedMethods} (private, by a {@code VarHandle}), the set
 *     {@code getImplementedMethods} fills on first use and JACOB reads to find the method a
 *     message calls.</li>
 * <li>engine and the XPath 1.0 runtime, for the expressions: {@code BpelRuntimeContextImpl.getExpLangRuntime}
 *     (public, overridden: ODE's activities and {@code ExprEvaluationContextImpl} reach the
 *     registry through it), {@code BpelProcess._expLangRuntimeRegistry} (package-private, made
 *     with the model by each hydration), {@code ExpressionLanguageRuntimeRegistry}'s public
 *     methods (extended); the compiled expressions' public fields ({@code OXPath10Expression}'s
 *     {@code xpath}, {@code namespaceCtx}, {@code vars}, {@code OXPath10ExpressionBPEL20}'s
 *     {@code isJoinExpression}, the language's {@code runtime-class}); and what
 *     {@code XPath10ExpressionRuntime} and {@code JaxenContexts} do with them, repeated for the
 *     forms taken (the variable read through {@code EvaluationContext.readVariable}, the types
 *     narrowed, the fault for a variable that reads null, a value that is no node returned as a
 *     text under a {@code wrapper} element, the message of {@code evaluateNode}'s fault);
 *     {@code PathExpressionsTest} holds each to ODE's runtime.</li>
 * <li>utils: {@code DOMUtils.__documentBuilderFactory} (private static, by reflection): the
 *     parser factory ODE parses every assign's literal with, told to build documents without
 *     deferred nodes and replaced by one whose parsers answer a known literal with a copy of its
 *     one parse ({@link io.moses.ode.LiteralParsing}); the literals are found in the compiled
 *     model ({@code OProcess.getChildren}, {@code OAssign.Literal.getXmlLiteral}), whose text is
 *     what {@code ASSIGN} parses.</li>
 * <li>engine, for durable processes: {@code BpelRuntimeContextImpl.select} and
 *     {@code writeCorrelation} (public, overridden: an instance holds the correlation values it
 *     waits for or initiates until it commits), {@code BpelProcess._engine},
 *     {@code BpelEngineImpl._contexts} and {@code Contexts.scheduler} (the scheduler that holds
 *     them), {@code BpelProcess.getProcessType} (package-private) and
 *     {@code ProcessDAO.findInstance} (whether an unfinished instance of any version holds a
 *     value), {@code MessageExchangeImpl.setFailure} and
 *     {@code MyRoleMessageExchangeImpl.responseReceived} (package-private and protected: a request
 *     for an ended conversation fails at once and its caller wakes after the commit), and
 *     {@code BpelProcess.createRuntimeContext} again (every durable instance a transaction runs
 *     is told to {@link io.moses.ode.InstanceFence}).</li>
 * <li>scheduler: {@code SimpleScheduler.runJob} (protected), {@code setJobProcessor},
 *     {@code registerSynchronizer}, {@code scheduleVolatileJob}, its package-private {@code Job}
 *     ({@code jobId}, {@code detail}, {@code persisted}, {@code schedDate}, its constructor),
 *     {@code enqueue}, {@code DatabaseDelegate}, {@code _txm} and {@code JobNoLongerInDbException}
 *     (its own {@code execTransaction}, which tells the retries apart): run an instance's jobs one after the other
 *     instead of rolling back and retrying on its lock, keep the job table in memory, and
 *     answer a volatile job's id instead of its description (which no caller of ODE 1.3.7
 *     reads).</li>
 * </ul>
 */
package io.moses.ode;
