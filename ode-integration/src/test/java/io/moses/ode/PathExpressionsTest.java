package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.StringReader;
import java.net.URI;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.FaultException;
import org.apache.ode.bpel.elang.xpath10.o.OXPath10ExpressionBPEL20;
import org.apache.ode.bpel.explang.EvaluationContext;
import org.apache.ode.bpel.o.OConstants;
import org.apache.ode.bpel.o.OElementVarType;
import org.apache.ode.bpel.o.OExpression;
import org.apache.ode.bpel.o.OExpressionLanguage;
import org.apache.ode.bpel.o.OLink;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.OScope;
import org.apache.ode.bpel.o.OVarType;
import org.apache.ode.bpel.o.OXsdTypeVarType;
import org.apache.ode.bpel.runtime.ExpressionLanguageRuntimeRegistry;
import org.apache.ode.utils.DOMUtils;
import org.apache.ode.utils.NSContext;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.Text;
import org.xml.sax.InputSource;

/**
 * Every expression evaluated both by ODE's XPath 1.0 runtime (Jaxen) and by {@link PathExpressions},
 * on the same variables: the same nodes (the same objects), the same texts, the same variable
 * reads, the same faults.
 */
class PathExpressionsTest {
    private static final String TP = "urn:moses:trip", D = "urn:moses:d", XSD = "http://www.w3.org/2001/XMLSchema";

    private final OProcess process = new OProcess("2.0");
    private final OExpressionLanguage xpath10;
    private final NSContext namespaces = new NSContext();
    /** Each variable's value, as the engine's readVariable returns it; absent: an uninitialized variable. */
    private final Map<String, Node> values = new LinkedHashMap<>();
    private final Map<String, OScope.Variable> variables = new LinkedHashMap<>();
    private final Element request, doc;

    PathExpressionsTest() throws Exception {
        process.constants = new OConstants(process);
        process.constants.qnSelectionFailure = new QName("urn:bpel", "selectionFailure");
        process.constants.qnUninitializedVariable = new QName("urn:bpel", "uninitializedVariable");
        xpath10 = new OExpressionLanguage(process, Map.of("runtime-class", PathExpressions.ODES_XPATH10));
        xpath10.expressionLanguageUri = "urn:oasis:names:tc:wsbpel:2.0:sublang:xpath1.0";
        namespaces.register("tp", TP);
        namespaces.register("d", D);
        namespaces.register("other", "urn:moses:other");

        OMessageVarType.Part parameters = new OMessageVarType.Part(process, "parameters", new OElementVarType(process, new QName(TP, "planTrip")));
        variable("request", new OMessageVarType(process, new QName(TP, "planTripRequest"), List.of(parameters)));
        request = parse("<tp:planTrip xmlns:tp='" + TP + "'><tp:customer>alice</tp:customer>"
                + "<tp:destination>Rome <!-- a comment --><b>x</b><?pi y?></tp:destination><tp:item>1</tp:item><tp:item>2</tp:item>"
                + "<o:customer xmlns:o='urn:moses:other'>bob</o:customer><customer>no namespace</customer></tp:planTrip>");
        values.put("request", request);
        variable("doc", new OElementVarType(process, new QName(D, "root")));
        doc = parse("<d:root xmlns:d='" + D + "'><d:a><d:b>1</d:b><d:b>2</d:b></d:a><d:a><d:b>3</d:b></d:a><d:c/></d:root>");
        values.put("doc", doc);
        variable("car", xsd("string"));
        values.put("car", parse("<wrapper>Fiat</wrapper>"));
        variable("count", xsd("int"));
        values.put("count", parse("<wrapper>4</wrapper>"));
        variable("unset", new OElementVarType(process, new QName(D, "root"))); // no value: readVariable faults
        variable("gone", new OElementVarType(process, new QName(D, "root"))); // readVariable answers null
    }

    private OXsdTypeVarType xsd(String type) {
        OXsdTypeVarType t = new OXsdTypeVarType(process);
        t.xsdType = new QName(XSD, type);
        t.simple = true;
        return t;
    }

    private void variable(String name, OVarType type) {
        OScope.Variable v = new OScope.Variable(process, type);
        v.name = name;
        variables.put(name, v);
    }

    private static Element parse(String xml) throws Exception {
        return DOMUtils.parse(new InputSource(new StringReader(xml))).getDocumentElement();
    }

    private OXPath10ExpressionBPEL20 expression(String xpath) {
        OXPath10ExpressionBPEL20 e = new OXPath10ExpressionBPEL20(process, null, null, null, null, false);
        e.expressionLanguage = xpath10;
        e.xpath = xpath;
        e.namespaceCtx = namespaces;
        e.vars.putAll(variables); // ODE's compiler records the variables an expression names
        return e;
    }

    /** The engine's side of an evaluation: variables read, as ODE's evaluation context reads them, recorded. */
    private final class Context implements EvaluationContext {
        final List<String> reads = new ArrayList<>();
        final boolean narrow;
        final Node root;

        Context(boolean narrow, Node root) {
            this.narrow = narrow;
            this.root = root;
        }

        @Override
        public Node readVariable(OScope.Variable variable, OMessageVarType.Part part) throws FaultException {
            reads.add(variable.name + (part == null ? "" : "." + part.name));
            if (variable.name.equals("gone")) return null;
            Node value = values.get(variable.name);
            if (value == null) throw new FaultException(process.constants.qnUninitializedVariable, "the variable " + variable.name + " is not initialized");
            return value;
        }

        @Override public boolean narrowTypes() { return narrow; }
        @Override public Node getRootNode() { return root; }
        @Override public Node getPartData(Element message, OMessageVarType.Part part) { throw new UnsupportedOperationException(); }
        @Override public String readMessageProperty(OScope.Variable variable, OProcess.OProperty property) { throw new UnsupportedOperationException(); }
        @Override public boolean isLinkActive(OLink olink) { throw new UnsupportedOperationException(); }
        @Override public Node evaluateQuery(Node root, OExpression expr) { throw new UnsupportedOperationException(); }
        @Override public Long getProcessId() { return 7L; }
        @Override public QName getProcessQName() { return new QName(TP, "TripPlanner"); }
        @Override public URI getBaseResourceURI() { return null; }
        @Override public Node getPropertyValue(QName propertyName) { return null; }
        @Override public Date getCurrentEventDateTime() { return new Date(0); }
    }

    private interface Evaluation {
        Object run(ExpressionLanguageRuntimeRegistry registry, OExpression e, EvaluationContext ctx) throws Exception;
    }

    /** Evaluates {@code xpath} both ways, with and without narrowing, as a list and as one node, and compares. */
    private void sameAsOdes(String xpath) throws Exception {
        OXPath10ExpressionBPEL20 e = expression(xpath);
        ExpressionLanguageRuntimeRegistry odes = new ExpressionLanguageRuntimeRegistry();
        odes.registerRuntime(xpath10);
        PathExpressions ours = new PathExpressions(process, odes);
        for (boolean narrow : new boolean[] {true, false}) {
            compare(xpath, narrow, e, odes, ours, (r, x, c) -> r.evaluate(x, c));
            compare(xpath, narrow, e, odes, ours, (r, x, c) -> List.of(r.evaluateNode(x, c)));
        }
    }

    private void compare(String xpath, boolean narrow, OExpression e, ExpressionLanguageRuntimeRegistry odes,
            PathExpressions ours, Evaluation evaluation) throws Exception {
        String what = xpath + (narrow ? " (narrowing)" : "");
        Context odesCtx = new Context(narrow, request), ourCtx = new Context(narrow, request);
        Object expected, actual;
        try {
            expected = evaluation.run(odes, e, odesCtx);
        } catch (FaultException f) {
            FaultException ourFault = assertThrows(FaultException.class, () -> evaluation.run(ours, e, ourCtx), what);
            assertEquals(f.getQName(), ourFault.getQName(), what);
            assertEquals(f.getMessage(), ourFault.getMessage(), what);
            assertEquals(odesCtx.reads, ourCtx.reads, what);
            return;
        }
        actual = evaluation.run(ours, e, ourCtx);
        assertEquals(odesCtx.reads, ourCtx.reads, what);
        List<?> x = (List<?>) expected, a = (List<?>) actual;
        assertEquals(x.size(), a.size(), what + ": " + x + " against " + a);
        for (int i = 0; i < x.size(); i++) {
            Node xn = (Node) x.get(i), an = (Node) a.get(i);
            if (xn.getParentNode() != null && "wrapper".equals(xn.getParentNode().getNodeName())
                    && xn.getOwnerDocument().getDocumentElement() == xn.getParentNode()) {
                // a value that is no node: a text in a document of its own, new each time
                Text t = assertInstanceOf(Text.class, an, what);
                assertEquals(((Text) xn).getData(), t.getData(), what);
                assertEquals("wrapper", t.getParentNode().getNodeName(), what);
                assertSame(t.getParentNode(), t.getOwnerDocument().getDocumentElement(), what);
            } else {
                assertSame(xn, an, what + ": the same node of the variable, not a copy");
            }
        }
    }

    @Test
    void pathsOfChildStepsSelectTheNodesJaxenSelects() throws Exception {
        for (String x : List.of("$request.parameters/tp:customer", "$request.parameters/tp:item", "$request.parameters/tp:nothing",
                "$request.parameters/other:customer", "$request.parameters/customer", "$request.parameters/b",
                "$doc/d:a/d:b", "$doc/d:a", "$doc/d:c", "$doc", " $doc/d:a/d:b ", "$request.parameters")) {
            assertNotNull(PathExpressions.read(expression(x)), x + " is read as a path");
            sameAsOdes(x);
        }
    }

    @Test
    void stringOfAPathIsTheStringValueOfItsFirstNode() throws Exception {
        for (String x : List.of("string($request.parameters/tp:destination)", "string($request.parameters/tp:item)",
                "string($request.parameters/tp:nothing)", "string($doc/d:a/d:b)", "string($doc)", "string($car)",
                "string($request.parameters/tp:customer)")) {
            assertNotNull(PathExpressions.read(expression(x)), x + " is read as string() of a path");
            sameAsOdes(x);
        }
    }

    @Test
    void literalsAndStringVariablesBecomeTextsOfTheirOwn() throws Exception {
        for (String x : List.of("'none'", "''", "\"double quoted\"", "1", "0", "007", "12345678901234567890", "$car")) {
            assertNotNull(PathExpressions.read(expression(x)), x + " is read");
            sameAsOdes(x);
        }
    }

    @Test
    void aVariableThatCannotBeReadFaultsAsInOde() throws Exception {
        for (String x : List.of("$unset/d:a", "$gone/d:a", "string($unset)", "$gone")) {
            assertNotNull(PathExpressions.read(expression(x)), x + " is read");
            sameAsOdes(x);
        }
    }

    @Test
    void everyOtherExpressionIsOdes() throws Exception {
        for (String x : List.of("$request.parameters/tp:item[1]", "$request.parameters//tp:customer", "$request.parameters/tp:*",
                "$request.parameters/@id", "$count", "string($count)", "$request", "$request.nopart/tp:customer",
                "$request.parameters/undeclared:customer", "$doc/d:a | $doc/d:c", "concat('a', 'b')", "string($doc) = 'x'",
                "'it''s'", "1.5", "-1", "$doc/d:a/text()", "$doc/ d:a", "$ode:pid", "number($car)", "$doc-x/d:a")) {
            assertNull(PathExpressions.read(expression(x)), x + " is left to ODE");
        }
        for (String x : List.of("$request.parameters/tp:item[1]", "$request.parameters/tp:*", "$count", "string($count)",
                "concat('a', 'b')", "$doc/d:a | $doc/d:c")) {
            sameAsOdes(x); // evaluated by ODE's runtime through PathExpressions
        }
    }

    @Test
    void anExpressionOfAnotherProcessOrLanguageIsOdes() throws Exception {
        OXPath10ExpressionBPEL20 join = new OXPath10ExpressionBPEL20(process, null, null, null, null, true);
        join.expressionLanguage = xpath10;
        join.xpath = "$doc";
        join.namespaceCtx = namespaces;
        join.vars.putAll(variables);
        assertNull(PathExpressions.read(join), "a join condition's variables are links");

        OExpressionLanguage other = new OExpressionLanguage(process, Map.of("runtime-class", "com.example.OtherRuntime"));
        OXPath10ExpressionBPEL20 e = expression("$doc");
        e.expressionLanguage = other;
        assertNull(PathExpressions.read(e));

        OXPath10ExpressionBPEL20 literal = expression("'here'");
        // ODE's registry without runtimes: what reaches it fails, what is evaluated here does not
        PathExpressions ours = new PathExpressions(process, new ExpressionLanguageRuntimeRegistry());
        assertEquals("here", ((Node) ours.evaluate(literal, new Context(true, null)).get(0)).getNodeValue());
        OProcess another = new OProcess("2.0");
        while (another.getChildren().size() < literal.getId() - 1) new OConstants(another);
        OXPath10ExpressionBPEL20 foreign = new OXPath10ExpressionBPEL20(another, null, null, null, null, false);
        assertEquals(literal.getId(), foreign.getId(), "another process's expression of the same id");
        foreign.expressionLanguage = xpath10;
        foreign.xpath = "'there'";
        foreign.namespaceCtx = namespaces;
        assertThrows(NullPointerException.class, () -> ours.evaluate(foreign, new Context(true, null)), "handed to ODE's registry");
        assertThrows(UnsupportedOperationException.class, () -> ours.registerRuntime(xpath10));
    }
}
