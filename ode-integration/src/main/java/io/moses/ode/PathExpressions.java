package io.moses.ode;

import java.util.ArrayList;
import java.util.Calendar;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.FaultException;
import org.apache.ode.bpel.elang.xpath10.o.OXPath10Expression;
import org.apache.ode.bpel.elang.xpath10.o.OXPath10ExpressionBPEL20;
import org.apache.ode.bpel.explang.EvaluationContext;
import org.apache.ode.bpel.explang.EvaluationException;
import org.apache.ode.bpel.o.OBase;
import org.apache.ode.bpel.o.OExpression;
import org.apache.ode.bpel.o.OExpressionLanguage;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.OScope;
import org.apache.ode.bpel.o.OVarType;
import org.apache.ode.bpel.o.OXsdTypeVarType;
import org.apache.ode.bpel.runtime.ExpressionLanguageRuntimeRegistry;
import org.apache.ode.utils.DOMUtils;
import org.apache.ode.utils.xsd.Duration;
import org.jaxen.dom.DocumentNavigator;
import org.jaxen.function.StringFunction;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * One process's expression evaluator: the XPath 1.0 expressions of the simplest forms, which are
 * most of what a process's {@code <copy>}s say, are evaluated here, straight on the DOM; every
 * other expression by ODE's own runtime ({@code odes}), as before.
 *
 * <p>ODE evaluates each XPath 1.0 expression with Jaxen: per evaluation it builds a Jaxen context
 * (a variable resolver, a namespace adapter, a navigator), looks the compiled expression up by
 * its text, resolves each prefix at each node it tests and walks Jaxen's expression tree: about a
 * tenth of a broker's CPU in the trip planner. The forms taken here, read once per process:
 * <ul>
 * <li>{@code $var}, {@code $var.part} and either followed by child steps {@code /p:name} or
 *     {@code /name}: the variable read as Jaxen's variable resolver reads it (the same
 *     {@code readVariable} call, so the same events and faults), then the children matched as
 *     Jaxen matches them (local name, then namespace URI, "" and none alike), in document
 *     order;</li>
 * <li>{@code string(}such a path{@code )}: the string-value of its first node, by Jaxen's own
 *     {@code string()};</li>
 * <li>a string literal ({@code 'none'}) or a number of digits ({@code 1}).</li>
 * </ul>
 * A result that is not a node becomes a text node in a document of its own, as ODE makes it.
 * Anything else (a predicate, another axis, an operator, a function but {@code string()},
 * {@code $ode:pid}, a join condition, a variable of a boolean or numeric XML Schema type, which
 * ODE narrows to a Jaxen boolean or number, a name this class does not read as Jaxen does) is
 * ODE's.
 */
public final class PathExpressions extends ExpressionLanguageRuntimeRegistry {
    /** The runtime ODE's XPath 1.0 compiler names for the expressions it compiles. */
    static final String ODES_XPATH10 = "org.apache.ode.bpel.elang.xpath10.runtime.XPath10ExpressionRuntime";

    private static final String XSD = "http://www.w3.org/2001/XMLSchema";
    /** The types JaxenContexts narrows to Boolean or Double: their variables stay ODE's. */
    private static final Set<QName> NARROWED_TO_NON_STRING = Set.of(
            new QName(XSD, "boolean"), new QName(XSD, "byte"), new QName(XSD, "int"), new QName(XSD, "integer"),
            new QName(XSD, "long"), new QName(XSD, "short"), new QName(XSD, "unsignedInt"),
            new QName(XSD, "unsignedShort"), new QName(XSD, "unsignedByte"), new QName(XSD, "decimal"),
            new QName(XSD, "float"), new QName(XSD, "double"));

    private final OProcess model;
    private final ExpressionLanguageRuntimeRegistry odes;
    /** By expression id (OBase ids are dense per process); null where ODE evaluates. */
    private final Shortcut[] byId;

    /**
     * @param model the process whose expressions are read
     * @param odes  ODE's registry for the same process (hydration), which evaluates the rest
     */
    public PathExpressions(OProcess model, ExpressionLanguageRuntimeRegistry odes) {
        this.model = model;
        this.odes = odes;
        int last = 0;
        for (OBase b : model.getChildren()) last = Math.max(last, b.getId());
        Shortcut[] found = new Shortcut[last + 1];
        for (OBase b : model.getChildren()) {
            if (b instanceof OXPath10ExpressionBPEL20 e) found[b.getId()] = read(e);
        }
        this.byId = found;
    }

    private Shortcut shortcut(OExpression e) {
        int id = e.getId();
        return e.getOwner() == model && id < byId.length ? byId[id] : null;
    }

    @Override
    public List evaluate(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        Shortcut s = shortcut(cexp);
        return s == null ? odes.evaluate(cexp, ctx) : s.evaluate(ctx);
    }

    /** As ODE's XPath 1.0 runtime: exactly one node, else a selection failure saying what was found. */
    @Override
    public Node evaluateNode(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        Shortcut s = shortcut(cexp);
        if (s == null) return odes.evaluateNode(cexp, ctx);
        List<?> nodes = s.evaluate(ctx);
        if (nodes.size() != 1) {
            StringBuffer msg = new StringBuffer(nodes.isEmpty() ? "No results for expression: '" : "Multiple results for expression: '");
            msg.append(((OXPath10Expression) cexp).xpath).append("'");
            if (ctx.getRootNode() != null) msg.append(" against '").append(DOMUtils.domToString(ctx.getRootNode())).append("'");
            throw new FaultException(cexp.getOwner().constants.qnSelectionFailure, msg.toString());
        }
        return (Node) nodes.get(0);
    }

    // ODE's registry keeps its runtimes to itself: what is not taken above is forwarded to it

    @Override
    public String evaluateAsString(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        return odes.evaluateAsString(cexp, ctx);
    }

    @Override
    public boolean evaluateAsBoolean(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        return odes.evaluateAsBoolean(cexp, ctx);
    }

    @Override
    public Number evaluateAsNumber(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        return odes.evaluateAsNumber(cexp, ctx);
    }

    @Override
    public Calendar evaluateAsDate(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        return odes.evaluateAsDate(cexp, ctx);
    }

    @Override
    public Duration evaluateAsDuration(OExpression cexp, EvaluationContext ctx) throws FaultException, EvaluationException {
        return odes.evaluateAsDuration(cexp, ctx);
    }

    /** The process's runtimes are ODE's registry's; nothing registers here. */
    @Override
    public void registerRuntime(OExpressionLanguage oelang) {
        throw new UnsupportedOperationException("expression languages are registered with ODE's registry, not with " + getClass().getSimpleName());
    }

    /** An expression of a form evaluated here. */
    private sealed interface Shortcut permits Constant, Path, StringOf {
        List<?> evaluate(EvaluationContext ctx) throws FaultException;
    }

    /** A literal: what Jaxen gives (a string, a double) as the text ODE's runtime makes of it. */
    private record Constant(String text) implements Shortcut {
        @Override
        public List<?> evaluate(EvaluationContext ctx) {
            return inDocumentOfItsOwn(text);
        }
    }

    /** {@code $variable[.part](/step)*}. */
    private record Path(String reference, OScope.Variable variable, OMessageVarType.Part part, boolean narrowsToString,
            Step[] steps) implements Shortcut {
        @Override
        public List<?> evaluate(EvaluationContext ctx) throws FaultException {
            Object value = value(ctx); // read once: each read is an event
            return value instanceof Node node ? select(node) : inDocumentOfItsOwn((String) value);
        }

        /** The nodes the steps select below {@code node}, in document order (node itself when there are none). */
        List<Node> select(Node node) {
            List<Node> context = Collections.singletonList(node);
            for (Step step : steps) {
                List<Node> next = new ArrayList<>(2);
                for (Node parent : context) {
                    for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling()) {
                        if (step.matches(c)) next.add(c);
                    }
                }
                context = next;
            }
            return context;
        }

        /** What Jaxen's variable resolver (ODE's {@code JaxenContexts}) makes of the variable: a node, or its text. */
        Object value(EvaluationContext ctx) throws FaultException {
            Node node = ctx.readVariable(variable, part);
            if (node == null)
                throw new FaultException(variable.getOwner().constants.qnSelectionFailure, "Unknown variable " + reference);
            return narrowsToString && ctx.narrowTypes() ? node.getTextContent() : node;
        }
    }

    /** {@code string(path)}. */
    private record StringOf(Path path) implements Shortcut {
        @Override
        public List<?> evaluate(EvaluationContext ctx) throws FaultException {
            Object value = path.value(ctx);
            return inDocumentOfItsOwn(value instanceof Node node
                    ? StringFunction.evaluate(path.select(node), DocumentNavigator.getInstance()) : (String) value);
        }
    }

    /** A child step's name test, matched as Jaxen's {@code DefaultNameStep} matches an element. */
    private record Step(String uri, String localName) {
        boolean matches(Node n) {
            if (n.getNodeType() != Node.ELEMENT_NODE) return false;
            String name = n.getLocalName() != null ? n.getLocalName() : n.getNodeName();
            String nodeUri = n.getNamespaceURI();
            if (hasNamespace(uri) != hasNamespace(nodeUri)) return false;
            return localName.equals(name) && (!hasNamespace(uri) || uri.equals(nodeUri));
        }

        private static boolean hasNamespace(String uri) {
            return uri != null && !uri.isEmpty();
        }
    }

    /** As ODE's XPath 1.0 runtime returns a value that is not a node: a text node under a wrapper element. */
    private static List<Node> inDocumentOfItsOwn(String text) {
        Document d = DOMUtils.newDocument();
        Element wrapper = d.createElement("wrapper");
        Node t = d.createTextNode(text);
        wrapper.appendChild(t);
        d.appendChild(wrapper);
        return Collections.singletonList(t);
    }

    // ---- reading an expression's text ----

    /** The shortcut for {@code e}, or null when ODE evaluates it. */
    static Shortcut read(OXPath10ExpressionBPEL20 e) {
        if (e.isJoinExpression || e.xpath == null || e.namespaceCtx == null || e.vars == null) return null;
        OExpressionLanguage language = e.expressionLanguage;
        if (language == null || !ODES_XPATH10.equals(language.properties.get("runtime-class"))) return null;
        String x = e.xpath.strip();
        if (x.length() >= 2 && (x.charAt(0) == '\'' || x.charAt(0) == '"')) {
            int close = x.indexOf(x.charAt(0), 1);
            return close == x.length() - 1 ? new Constant(x.substring(1, close)) : null;
        }
        if (!x.isEmpty() && x.chars().allMatch(c -> c >= '0' && c <= '9')) return new Constant(number(x));
        if (x.startsWith("string(") && x.endsWith(")")) {
            Path p = path(e, x.substring("string(".length(), x.length() - 1));
            return p == null ? null : new StringOf(p);
        }
        return path(e, x);
    }

    /** As ODE's runtime writes a Jaxen double: integral values without a fraction. */
    private static String number(String digits) {
        Double d = Double.valueOf(digits);
        Object ret = d;
        if (!d.isNaN() && Double.compare(d, Math.ceil(d)) == 0) ret = d.longValue();
        return ret.toString();
    }

    private static Path path(OXPath10ExpressionBPEL20 e, String x) {
        if (!x.startsWith("$")) return null;
        String[] parts = x.substring(1).split("/", -1);
        String reference = parts[0];
        if (!isName(reference, true)) return null;
        int dot = reference.indexOf('.');
        String varName = dot < 0 ? reference : reference.substring(0, dot);
        String partName = dot < 0 ? null : reference.substring(dot + 1);
        if (varName.isEmpty() || (partName != null && (partName.isEmpty() || partName.indexOf('.') >= 0))) return null;
        OScope.Variable variable = e.vars.get(varName);
        if (variable == null || variable.type == null) return null;
        OVarType type = variable.type;
        OMessageVarType.Part part = null;
        if (type instanceof OMessageVarType message) {
            if (partName == null) return null; // ODE faults: a message has no value of its own in XPath
            part = message.parts.get(partName);
            if (part == null) return null;
            type = part.type;
        } else if (partName != null) {
            return null;
        }
        OXsdTypeVarType simple = type instanceof OXsdTypeVarType xsd && xsd.simple ? xsd : null;
        // a simple value has no children to step to; boolean and numeric ones are ODE's (see above)
        if (simple != null && (parts.length > 1 || simple.xsdType == null || NARROWED_TO_NON_STRING.contains(simple.xsdType)))
            return null;
        Step[] steps = new Step[parts.length - 1];
        for (int i = 1; i < parts.length; i++) {
            String test = parts[i];
            int colon = test.indexOf(':');
            String local = colon < 0 ? test : test.substring(colon + 1);
            if (!isName(local, false)) return null;
            String uri = null;
            if (colon >= 0) {
                String prefix = test.substring(0, colon);
                if (!isName(prefix, false)) return null;
                uri = e.namespaceCtx.getNamespaceURI(prefix);
                if (uri == null) return null; // Jaxen's "cannot resolve namespace prefix" is ODE's to raise
            }
            steps[i - 1] = new Step(uri, local);
        }
        return new Path(reference, variable, part, simple != null, steps);
    }

    /** An ASCII XML name without colons (and, in a variable reference, with the one dot of {@code var.part}). */
    private static boolean isName(String s, boolean dotAllowed) {
        if (s.isEmpty()) return false;
        char first = s.charAt(0);
        if (!(first == '_' || (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) return false;
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (dotAllowed && c == '.');
            if (!ok) return false;
        }
        return true;
    }
}
