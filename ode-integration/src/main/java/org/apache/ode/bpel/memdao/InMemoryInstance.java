package org.apache.ode.bpel.memdao;

import io.moses.ode.VariableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ode.bpel.dao.BpelDAOConnection;
import org.apache.ode.bpel.dao.CorrelationSetDAO;
import org.apache.ode.bpel.dao.CorrelatorDAO;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;

/**
 * ODE's in-memory process instance, whose scopes keep their variables in the broker's
 * {@link VariableStore} instead of ODE's {@code XmlDataDaoImpl} (which copies every value on
 * every write). The link in the DAO chain ODE offers: {@code InMemoryProcesses} (the DAO
 * factory) creates this instance, this instance creates {@link Scope}s, a scope creates
 * {@link VariableStore}s. Nothing on the class path is replaced, so the order of the class
 * path does not matter.
 *
 * <p>ODE keeps an instance's scopes in private fields that only its own {@code createScope}
 * fills, so this class keeps them itself, and overrides every method of ODE's class that reads
 * them (ODE 1.3.7's {@code ProcessInstanceDaoImpl}, same semantics: plain maps, as ODE's, read
 * under ODE's instance lock). In ODE's package because the constructors of ODE's instance and
 * scope are package-private.
 */
final class InMemoryInstance extends ProcessInstanceDaoImpl {
    private final Map<Long, ScopeDAO> scopes = new HashMap<>();
    private final Map<String, List<ScopeDAO>> scopesByName = new HashMap<>();
    private ScopeDAO rootScope;

    InMemoryInstance(BpelDAOConnection conn, ProcessDaoImpl process, CorrelatorDAO correlator) {
        super(conn, process, correlator);
    }

    @Override
    public ScopeDAO createScope(ScopeDAO parent, String scopeType, int scopeModelId) {
        Scope scope = new Scope(this, parent, scopeType, scopeModelId);
        scopes.put(scope.getScopeInstanceId(), scope);
        scopesByName.computeIfAbsent(scopeType, t -> new LinkedList<>()).add(scope);
        if (parent == null) rootScope = scope;
        return scope;
    }

    @Override
    public ScopeDAO getRootScope() {
        return rootScope;
    }

    @Override
    public ScopeDAO getScope(Long scopeInstanceId) {
        return scopes.get(scopeInstanceId);
    }

    @Override
    public Collection<ScopeDAO> getScopes() {
        return scopes.values();
    }

    @Override
    public Collection<ScopeDAO> getScopes(String scopeName) {
        List<ScopeDAO> named = scopesByName.get(scopeName);
        return named == null ? Collections.emptyList() : named;
    }

    @Override
    public XmlDataDAO[] getVariables(String variableName, int scopeModelId) {
        List<XmlDataDAO> found = new ArrayList<>();
        for (ScopeDAO scope : scopes.values())
            if (scope.getModelId() == scopeModelId) found.add(scope.getVariable(variableName));
        return found.toArray(new XmlDataDAO[0]);
    }

    @Override
    public Set<CorrelationSetDAO> getCorrelationSets() {
        Set<CorrelationSetDAO> sets = new HashSet<>();
        for (ScopeDAO scope : scopes.values()) sets.addAll(scope.getCorrelationSets());
        return sets;
    }

    /** As ODE's: the set of that name in the first scope (a scope creates a set it is asked for). */
    @Override
    public CorrelationSetDAO getCorrelationSet(String name) {
        for (ScopeDAO scope : scopes.values()) {
            CorrelationSetDAO set = scope.getCorrelationSet(name);
            if (set != null) return set;
        }
        return null;
    }

    /** ODE's in-memory scope, with its variables in {@link VariableStore}s. */
    static final class Scope extends ScopeDaoImpl {
        private final Map<String, XmlDataDAO> variables = new HashMap<>();

        Scope(ProcessInstanceDaoImpl owner, ScopeDAO parent, String type, int scopeModelId) {
            super(owner, parent, type, scopeModelId);
        }

        @Override
        public XmlDataDAO getVariable(String name) {
            return variables.computeIfAbsent(name, n -> new VariableStore(this, n));
        }

        @Override
        public Collection<XmlDataDAO> getVariables() {
            return variables.values();
        }
    }
}
