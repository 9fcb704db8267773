package io.moses.ode;

import java.util.Properties;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dao.BpelDAOConnectionFactory;
import org.apache.ode.bpel.dao.ProcessDAO;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The broker's in-memory store of one BPEL variable, used instead of ODE's
 * {@code org.apache.ode.bpel.memdao.XmlDataDaoImpl}: ODE's in-memory scopes are replaced by the
 * broker's ({@code InMemoryProcesses}, the DAO factory handed to {@code setDaoConnectionFactory}),
 * and those create their variables here. ODE's class stays on the class path, unused; the
 * class-path order does not matter. The value stays a DOM node: a write keeps the node it is
 * given when that node is a document of its own, instead of copying it. {@link #get()} hands out
 * a copy, for a reader that may change what it gets (assign changes its copy of the variable it
 * writes, then writes it back); {@link #peek()} hands out the value itself, for the engine's reads
 * that only look ({@code org.apache.ode.bpel.engine.BrokerRuntimeContext}). ODE's engine writes a
 * variable with a node it got from a read for writing (a copy already) or with a message it built,
 * and never changes a node after writing it.
 *
 * <p>Written for the broker, not copied from ODE: ODE's version copies on every write and on
 * every read.
 */
public final class VariableStore implements XmlDataDAO {
    private final ScopeDAO scope;
    private final String name;
    private final Properties properties = new Properties();
    private Node value;

    public VariableStore(ScopeDAO scope, String name) {
        this.scope = scope;
        this.name = name;
    }

    /**
     * The class of the store that {@code daos} gives a new instance's variables, found the way
     * ODE's engine reaches it (process, instance, scope, variable); the probe process is removed
     * again. Call it inside a transaction of the DAOs' scheduler and roll that back: the probe
     * instance is registered on commit.
     */
    public static Class<?> usedBy(BpelDAOConnectionFactory daos) {
        QName probe = new QName("urn:moses:variable-store-probe", "probe");
        ProcessDAO process = daos.getConnection().createProcess(probe, probe, "variable-store-probe", 0);
        try {
            return process.createInstance(null).createScope(null, "probe", 0).getVariable("probe").getClass();
        } finally {
            process.deleteProcessAndRoutes();
        }
    }

    /**
     * @throws IllegalStateException when {@code daos} keep variables in another store than this
     *         one (ODE's copies every value on every write: a broker running it quietly would be
     *         several times slower, and mislead every measurement made of it)
     */
    public static void requireUsedBy(BpelDAOConnectionFactory daos) {
        Class<?> store = usedBy(daos);
        if (store != VariableStore.class)
            throw new IllegalStateException("the in-memory DAOs " + daos.getClass().getName() + " keep BPEL variables in "
                    + store.getName() + ", not in the broker's " + VariableStore.class.getName());
    }

    @Override
    public boolean isNull() {
        return value == null;
    }

    @Override
    public Node get() {
        Node v = value;
        if (v == null) return null;
        Document doc = DOMUtils.newDocument();
        Node copy = doc.importNode(v, true);
        if (copy instanceof Element) {
            doc.appendChild(copy);
        } else {
            // A text or attribute value: ODE expects it inside an element of its own document.
            Element wrapper = doc.createElement("wrapper");
            wrapper.appendChild(copy);
        }
        return copy;
    }

    /**
     * The value itself, not a copy (null when unset): for a reader that does not change it. The
     * instance's thread reads it; whatever leaves the instance (a message sent, a reply) is copied
     * first, so no other thread reads it as it changes.
     */
    public Node peek() {
        return value;
    }

    @Override
    public void set(Node node) {
        if (node instanceof Element e && e.getParentNode() instanceof Document d && d.getDocumentElement() == e) {
            value = e; // the root of a document of its own: nothing else shares it
            return;
        }
        if (!(node instanceof Element)) {
            value = node;
            return;
        }
        Document doc = DOMUtils.newDocument();
        Node copy = doc.importNode(node, true);
        doc.appendChild(copy);
        value = copy;
    }

    @Override
    public void remove() {
        value = null;
    }

    @Override
    public String getProperty(String key) {
        return properties.getProperty(key);
    }

    @Override
    public void setProperty(String key, String value) {
        properties.setProperty(key, value);
    }

    @Override
    public ScopeDAO getScopeDAO() {
        return scope;
    }

    @Override
    public String getName() {
        return name;
    }
}
