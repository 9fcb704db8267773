package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.xml.namespace.QName;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;
import org.apache.ode.bpel.memdao.BpelDAOConnectionFactoryImpl;
import org.apache.ode.bpel.memdao.InMemoryProcesses;
import org.apache.ode.bpel.memdao.InMemoryProcessesTest;
import org.apache.ode.utils.DOMUtils;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class VariableStoreTest {
    @Test
    void theBrokersDaosKeepVariablesInTheBrokersStoreWhateverTheClassPathOrder() {
        // The DAO chain ODE offers (factory -> process -> instance -> scope -> variable), not a
        // class of ODE's name that must come first on the class path.
        InMemoryProcesses daos = new InMemoryProcesses(InMemoryProcessesTest.committingAtOnce());
        assertSame(VariableStore.class, VariableStore.usedBy(daos));
        VariableStore.requireUsedBy(daos);
        assertEquals(0, daos.instances(new QName("urn:moses:variable-store-probe", "probe")), "the probe leaves no process behind");
    }

    @Test
    void odesOwnDaosAreRefused() {
        BpelDAOConnectionFactoryImpl odes = new BpelDAOConnectionFactoryImpl(InMemoryProcessesTest.committingAtOnce());
        assertEquals("org.apache.ode.bpel.memdao.XmlDataDaoImpl", VariableStore.usedBy(odes).getName());
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> VariableStore.requireUsedBy(odes));
        assertTrue(refused.getMessage().contains("XmlDataDaoImpl"), refused.getMessage());
    }

    @Test
    void anInstanceFindsItsVariablesInTheBrokersStoreByScope() {
        ProcessInstanceDAO instance = new InMemoryProcesses(InMemoryProcessesTest.committingAtOnce()).getConnection()
                .createProcess(new QName("urn:t", "P-1"), new QName("urn:t", "P"), "guid", 1).createInstance(null);
        ScopeDAO root = instance.createScope(null, "process", 0);
        ScopeDAO inner = instance.createScope(root, "inner", 3);
        XmlDataDAO order = inner.getVariable("order");
        assertSame(order, inner.getVariable("order"), "one store per variable of a scope");
        assertTrue(order instanceof VariableStore);
        assertSame(root, instance.getRootScope());
        assertSame(inner, instance.getScope(inner.getScopeInstanceId()));
        assertEquals(java.util.List.of(inner), java.util.List.copyOf(instance.getScopes("inner")));
        assertEquals(2, instance.getScopes().size());
        XmlDataDAO[] found = instance.getVariables("order", 3);
        assertEquals(1, found.length);
        assertSame(order, found[0]);
        inner.getCorrelationSet("byCase");
        assertEquals(1, instance.getCorrelationSets().size());
    }

    @Test
    void aWriteKeepsADocumentsRootAndEveryReadCopies() {
        VariableStore v = new VariableStore(null, "order");
        assertTrue(v.isNull());
        Document doc = DOMUtils.newDocument();
        Element root = doc.createElementNS("urn:t", "order");
        doc.appendChild(root);
        v.set(root);
        Element read = (Element) v.get();
        assertNotSame(root, read, "a reader may change what it gets");
        assertEquals("order", read.getLocalName());
        read.setAttribute("changed", "yes");
        assertEquals("", ((Element) v.get()).getAttribute("changed"), "a reader's change does not reach the store");
        Element child = doc.createElementNS("urn:t", "line");
        root.appendChild(child);
        v.set(child); // not a document's root: copied, so the owner's later changes stay out
        child.setAttribute("late", "yes");
        assertEquals("", ((Element) v.get()).getAttribute("late"));
        v.remove();
        assertTrue(v.isNull());
    }

    @Test
    void aValueTheStoreWasGivenIsCopiedForChangeOnceThenChangedInPlace() {
        VariableStore v = new VariableStore(null, "order");
        assertEquals(null, v.getForChange());
        Element given = root("order");
        v.set(given); // a received message, say: others may hold it
        Element first = (Element) v.getForChange();
        assertNotSame(given, first, "a value the store did not make is copied");
        first.setAttribute("step", "1");
        assertEquals("", ((Element) v.peek()).getAttribute("step"), "unchanged until written back");
        v.set(first);
        Element second = (Element) v.getForChange();
        assertSame(first, second, "its own copy, written back, is changed in place");
        second.setAttribute("step", "2");
        v.set(second);
        assertEquals("2", ((Element) v.peek()).getAttribute("step"));
        assertEquals("", given.getAttribute("step"), "what it was given stays as it was");
    }

    @Test
    void aValueTwoStoresHoldIsChangedByNeitherInPlace() {
        VariableStore order = new VariableStore(null, "order"), copy = new VariableStore(null, "copy");
        order.set(root("order"));
        Element owned = (Element) order.getForChange();
        order.set(owned);
        copy.set(order.peek()); // an assign of a whole message: the value itself
        Element forOrder = (Element) order.getForChange();
        assertNotSame(owned, forOrder, "the store no longer holds its document alone");
        forOrder.setAttribute("changed", "order");
        order.set(forOrder);
        Element forCopy = (Element) copy.getForChange();
        assertNotSame(owned, forCopy);
        forCopy.setAttribute("changed", "copy");
        copy.set(forCopy);
        assertEquals("order", ((Element) order.peek()).getAttribute("changed"));
        assertEquals("copy", ((Element) copy.peek()).getAttribute("changed"));
        assertEquals("", owned.getAttribute("changed"), "the shared value is changed by neither");
        assertSame(forOrder, order.getForChange(), "each has its own again");
    }

    @Test
    void aPartOfAnotherDocumentIsCopiedOnWriteAndThenTheStoresOwn() {
        VariableStore v = new VariableStore(null, "line");
        Element order = root("order");
        Element line = order.getOwnerDocument().createElementNS("urn:t", "line");
        order.appendChild(line);
        v.set(line);
        Element stored = (Element) v.peek();
        assertNotSame(line, stored);
        assertSame(stored, v.getForChange(), "the copy made on the write is the store's alone");
    }

    private static Element root(String name) {
        Document doc = DOMUtils.newDocument();
        Element e = doc.createElementNS("urn:t", name);
        doc.appendChild(e);
        return e;
    }
}
