package io.moses.ode;

import java.util.Properties;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dao.BpelDAOConnectionFactory;
import org.apache.ode.bpel.dao.ProcessDAO;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;
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
 * a copy, for a reader that may change what it gets; {@link #peek()} hands out the value itself,
 * for the engine's reads that only look ({@code org.apache.ode.bpel.engine.BrokerRuntimeContext});
 * {@link #getForChange()} hands an assign its target to change and write back, itself when the
 * store alone holds its document. ODE's engine writes a variable with a node it got from a read
 * for writing, with a message it built, or with another variable's value read only to look
 * (an assign of a whole message), and changes a node it has written only through a read for
 * writing.
 *
 * <p>A document the store made (its copies) is marked as the store's; the mark goes when the
 * document is written to another store too, so two variables never share a value one of them
 * changes in place. A value the store was given (a received message, another variable's) is not
 * its own: the first read for writing copies it.
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
        return copy(value, null);
    }

    /**
     * The value for a reader that changes it and writes it back ({@code ASSIGN}'s target, read
     * for writing): the stored value itself when this store made its document and gave it to no
     * other store, else a copy in a document of this store's own (the stored value stays as it
     * is until the copy is written back). Null when unset.
     */
    public Node getForChange() {
        Node v = value;
        if (v instanceof Element e && isRoot(e) && e.getOwnerDocument() instanceof OwnDocument d && d.owner == this) return e;
        return copy(v, this);
    }

    /**
     * A document a store made for its value (Xerces' document, as ODE's parsers make them), marked
     * with the store while no other store holds it: a field, not DOM user data, which costs a
     * map per document and a look-up per read.
     */
    private static final class OwnDocument extends org.apache.xerces.dom.DocumentImpl {
        private static final long serialVersionUID = 1L;
        /** The store that alone holds this document; null once another holds it too (or for a reader's copy). */
        transient VariableStore owner;

        OwnDocument(VariableStore owner) {
            this.owner = owner;
        }
    }

    private static boolean isRoot(Element e) {
        return e.getParentNode() instanceof Document d && d.getDocumentElement() == e;
    }

    private static Node copy(Node v, VariableStore owner) {
        if (v == null) return null;
        Document doc = new OwnDocument(owner);
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
        if (node instanceof Element e && isRoot(e)) {
            // the root of a document: kept as it is (it may be another store's value too: see the mark)
            if (e.getOwnerDocument() instanceof OwnDocument d && d.owner != this) d.owner = null; // now two stores hold it: neither changes it in place
            value = e;
            return;
        }
        value = node instanceof Element ? copy(node, this) : node;
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
