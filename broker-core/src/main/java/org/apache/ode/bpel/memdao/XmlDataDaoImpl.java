package org.apache.ode.bpel.memdao;

import java.util.Properties;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The broker's own in-memory store of one BPEL variable, in place of ODE's class of the same
 * name (this one comes first on the class path; {@code BpelEngine} checks that at start and
 * says so if it does not). The value stays a DOM node: a write keeps the node it is given
 * when that node is a document of its own, instead of copying it, and a read hands out one
 * copy. ODE's engine writes a variable with a node it got from a read (a copy already) or
 * with a message it built, and never changes a node after writing it; a reader may change
 * what it gets (assign changes its copy, then writes it back), so reads still copy.
 *
 * <p>Written for the broker, not copied from ODE: ODE's version copies on every write and on
 * every read. The class name and package are fixed by ODE's in-memory scope, which creates its
 * variables with {@code new XmlDataDaoImpl(scope, name)}.
 */
class XmlDataDaoImpl extends DaoBaseImpl implements XmlDataDAO {
    private final ScopeDaoImpl scope;
    private final String name;
    private final Properties properties = new Properties();
    private Node value;

    XmlDataDaoImpl(ScopeDaoImpl scope, String name) {
        this.scope = scope;
        this.name = name;
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

    public Properties getProperties() {
        return properties;
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
