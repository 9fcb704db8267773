package io.moses.core.composition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.Activity.Choice;
import io.moses.model.Activity.Flow;
import io.moses.model.Activity.Invoke;
import io.moses.model.Activity.Loop;
import io.moses.model.Activity.NoOp;
import io.moses.model.Activity.ParallelForEach;
import io.moses.model.Activity.Sequence;
import io.moses.model.CompositeService;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every construct of docs/model.md, "Workflow and visits", on inline processes. */
class BehavioralModelBuilderTest {
    static final String BPEL20 = "http://docs.oasis-open.org/wsbpel/2.0/process/executable";
    private static final double EPS = 1e-12;

    static CompositeService parse(String xml) {
        return BehavioralModelBuilder.build(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "inline.bpel");
    }

    /** A process using every WS-BPEL 2.0 activity, handlers at process, scope and invoke level. */
    static final String ALL = """
            <?xml version="1.0" encoding="UTF-8"?>
            <process name="AllConstructs" targetNamespace="urn:test:all" xmlns="%s" xmlns:ext="urn:ext">
              <documentation>every construct</documentation>
              <partnerLinks><partnerLink name="client" partnerLinkType="x:y" myRole="r"/></partnerLinks>
              <faultHandlers>
                <catchAll><invoke partnerLink="ops" operation="alert"/></catchAll>
              </faultHandlers>
              <eventHandlers>
                <onEvent partnerLink="client" operation="cancel"><scope><invoke partnerLink="ops" operation="cancelled"/></scope></onEvent>
              </eventHandlers>
              <sequence name="main">
                <receive partnerLink="client" operation="start" createInstance="yes" variable="in"/>
                <ext:trace level="debug"/>
                <flow>
                  <links><link name="l1"/></links>
                  <invoke name="first" partnerLink="a" operation="one"><sources><source linkName="l1"/></sources></invoke>
                  <sequence>
                    <targets><target linkName="l1"/></targets>
                    <invoke partnerLink="b" operation="two">
                      <correlations><correlation set="c" initiate="no"/></correlations>
                      <catch faultName="x"><invoke partnerLink="ops" operation="retry"/></catch>
                      <compensationHandler><invoke partnerLink="b" operation="undo"/></compensationHandler>
                    </invoke>
                    <empty/>
                  </sequence>
                </flow>
                <if>
                  <condition>$in.x = 1</condition>
                  <invoke partnerLink="a" operation="one"/>
                  <elseif><condition>$in.x = 2</condition><wait><for>'PT1S'</for></wait></elseif>
                </if>
                <pick>
                  <onMessage partnerLink="client" operation="go" variable="v"><invoke partnerLink="c" operation="three"/></onMessage>
                  <onAlarm><for>'PT1S'</for><exit/></onAlarm>
                </pick>
                <while>
                  <condition>true()</condition>
                  <scope>
                    <faultHandlers><catchAll><invoke partnerLink="ops" operation="loopFailed"/></catchAll></faultHandlers>
                    <invoke partnerLink="d" operation="four"/>
                  </scope>
                </while>
                <repeatUntil>
                  <assign><copy><from>1</from><to variable="n"/></copy></assign>
                  <condition>true()</condition>
                </repeatUntil>
                <forEach counterName="i" parallel="yes">
                  <startCounterValue>1</startCounterValue><finalCounterValue>3</finalCounterValue>
                  <scope><invoke partnerLink="e" operation="five"/></scope>
                </forEach>
                <forEach counterName="j" parallel="no">
                  <startCounterValue>1</startCounterValue><finalCounterValue>3</finalCounterValue>
                  <completionCondition><branches>2</branches></completionCondition>
                  <scope><sequence><validate variables="v"/><throw faultName="f"/></sequence></scope>
                </forEach>
                <scope name="tidy">
                  <compensationHandler><compensate/></compensationHandler>
                  <terminationHandler><empty/></terminationHandler>
                  <sequence><compensateScope target="x"/><rethrow/><extensionActivity><ext:log/></extensionActivity></sequence>
                </scope>
                <reply partnerLink="client" operation="start" variable="out"/>
              </sequence>
            </process>
            """.formatted(BPEL20);

    private static TaskRef task(String pl, String op) {
        return TaskRef.of("AllConstructs", pl, op);
    }

    @Test
    void everyConstructMapsToTheTree() {
        CompositeService cs = parse(ALL);
        assertEquals("AllConstructs", cs.name());
        assertEquals("urn:test:all", cs.namespace());
        String s = "/process/sequence[1]";
        Activity expected = new Sequence(s, List.of(
                new NoOp(s + "/receive[1]", "receive"),
                new Flow(s + "/flow[1]", List.of(
                        new Invoke(s + "/flow[1]/invoke[1]", task("a", "one")),
                        new Sequence(s + "/flow[1]/sequence[1]", List.of(
                                new Invoke(s + "/flow[1]/sequence[1]/invoke[1]", task("b", "two")),
                                new NoOp(s + "/flow[1]/sequence[1]/empty[1]", "empty"))))),
                new Choice(s + "/if[1]", Choice.Kind.IF, List.of(
                        new Invoke(s + "/if[1]/invoke[1]", task("a", "one")),
                        new NoOp(s + "/if[1]/elseif[1]/wait[1]", "wait"),
                        new NoOp(s + "/if[1]/else", "empty"))),
                new Choice(s + "/pick[1]", Choice.Kind.PICK, List.of(
                        new Invoke(s + "/pick[1]/onMessage[1]/invoke[1]", task("c", "three")),
                        new NoOp(s + "/pick[1]/onAlarm[1]/exit[1]", "exit"))),
                new Loop(s + "/while[1]", Loop.Kind.WHILE,
                        new Invoke(s + "/while[1]/scope[1]/invoke[1]", task("d", "four"))),
                new Loop(s + "/repeatUntil[1]", Loop.Kind.REPEAT_UNTIL, new NoOp(s + "/repeatUntil[1]/assign[1]", "assign")),
                new ParallelForEach(s + "/forEach[1]", new Invoke(s + "/forEach[1]/scope[1]/invoke[1]", task("e", "five"))),
                new Loop(s + "/forEach[2]", Loop.Kind.FOR_EACH, new Sequence(s + "/forEach[2]/scope[1]/sequence[1]", List.of(
                        new NoOp(s + "/forEach[2]/scope[1]/sequence[1]/validate[1]", "validate"),
                        new NoOp(s + "/forEach[2]/scope[1]/sequence[1]/throw[1]", "throw")))),
                new Sequence(s + "/scope[1]/sequence[1]", List.of(
                        new NoOp(s + "/scope[1]/sequence[1]/compensateScope[1]", "compensateScope"),
                        new NoOp(s + "/scope[1]/sequence[1]/rethrow[1]", "rethrow"),
                        new NoOp(s + "/scope[1]/sequence[1]/extensionActivity[1]", "extensionActivity"))),
                new NoOp(s + "/reply[1]", "reply")));
        assertEquals(expected, cs.root());
    }

    @Test
    void tasksIncludeHandlerInvokesInDocumentOrderOnce() {
        // handlers' invokes are still bound by the broker when they run, so they are tasks (with visits 0)
        assertEquals(List.of(task("ops", "alert"), task("ops", "cancelled"), task("a", "one"), task("b", "two"),
                task("ops", "retry"), task("b", "undo"), task("c", "three"), task("ops", "loopFailed"),
                task("d", "four"), task("e", "five")), parse(ALL).tasks());
    }

    @Test
    void handlersCountZeroVisits() {
        Map<TaskRef, Double> v = Visits.of(parse(ALL), Visits.Profile.DEFAULT);
        assertEquals(1 + 1.0 / 3, v.get(task("a", "one")), EPS); // flow branch + one of three if branches
        assertEquals(1.0, v.get(task("b", "two")), EPS);
        assertEquals(0.5, v.get(task("c", "three")), EPS);
        assertEquals(1.0, v.get(task("d", "four")), EPS);
        assertEquals(1.0, v.get(task("e", "five")), EPS);
        for (String op : List.of("alert", "cancelled", "retry", "loopFailed")) assertEquals(0.0, v.get(task("ops", op)));
        assertEquals(0.0, v.get(task("b", "undo")));
        assertEquals(10, v.size());

        String s = "/process/sequence[1]";
        var p = new Visits.Profile(Map.of(s + "/if[1]", List.of(0.6, 0.3, 0.1), s + "/pick[1]", List.of(0.25, 0.75)),
                Map.of(s + "/while[1]", 3.0, s + "/forEach[1]", 4.0));
        v = Visits.of(parse(ALL), p);
        assertEquals(1.6, v.get(task("a", "one")), EPS);
        assertEquals(0.25, v.get(task("c", "three")), EPS);
        assertEquals(3.0, v.get(task("d", "four")), EPS);
        assertEquals(4.0, v.get(task("e", "five")), EPS);
    }

    @Test
    void prefixesAndWhitespaceDoNotChangeTheModel() {
        String prefixed = ALL.replace("xmlns=\"" + BPEL20 + "\"", "xmlns:bpel=\"" + BPEL20 + "\"")
                .replaceAll("<(/?)(?!ext:|\\?)", "<$1bpel:")
                .replace("\n", "\n\n  ");
        assertTrue(prefixed.contains("<bpel:sequence name=\"main\">") && !prefixed.contains("<sequence"), prefixed);
        CompositeService a = parse(ALL);
        CompositeService b = parse(prefixed);
        assertEquals(a, b);
    }

    @Test
    void ifWithElseHasNoImplicitBranch() {
        CompositeService cs = parse(process("""
                <if><condition>1</condition><empty/><else><invoke partnerLink="p" operation="o"/></else></if>"""));
        Choice c = assertInstanceOf(Choice.class, cs.root());
        assertEquals("/process/if[1]", c.id());
        assertEquals(List.of(new NoOp("/process/if[1]/empty[1]", "empty"),
                new Invoke("/process/if[1]/else[1]/invoke[1]", TaskRef.of("P", "p", "o"))), c.branches());
    }

    @Test
    void forEachWithoutParallelIsSequential() {
        CompositeService cs = parse(process("""
                <forEach counterName="i"><startCounterValue>1</startCounterValue><finalCounterValue>2</finalCounterValue>
                <scope><invoke partnerLink="p" operation="o"/></scope></forEach>"""));
        assertEquals(Loop.Kind.FOR_EACH, assertInstanceOf(Loop.class, cs.root()).kind());
    }

    @Test
    void bpel4ws11Process() {
        String xml = """
                <process name="Legacy" targetNamespace="urn:legacy"
                         xmlns="http://schemas.xmlsoap.org/ws/2003/03/business-process/">
                  <sequence>
                    <receive partnerLink="client" portType="t:pt" operation="start" createInstance="yes"/>
                    <switch>
                      <case condition="bpws:getVariableData('x') = 1"><invoke partnerLink="a" portType="t:a" operation="x"/></case>
                      <case condition="bpws:getVariableData('x') = 2"><empty/></case>
                    </switch>
                    <while condition="true()"><invoke partnerLink="b" portType="t:b" operation="y"/></while>
                    <terminate/>
                  </sequence>
                </process>""";
        CompositeService cs = parse(xml);
        TaskRef x = TaskRef.of("Legacy", "a", "x");
        TaskRef y = TaskRef.of("Legacy", "b", "y");
        assertEquals(List.of(x, y), cs.tasks());
        String s = "/process/sequence[1]";
        assertEquals(new Sequence(s, List.of(
                new NoOp(s + "/receive[1]", "receive"),
                new Choice(s + "/switch[1]", Choice.Kind.IF, List.of(
                        new Invoke(s + "/switch[1]/case[1]/invoke[1]", x),
                        new NoOp(s + "/switch[1]/case[2]/empty[1]", "empty"),
                        new NoOp(s + "/switch[1]/otherwise", "empty"))),
                new Loop(s + "/while[1]", Loop.Kind.WHILE, new Invoke(s + "/while[1]/invoke[1]", y)),
                new NoOp(s + "/terminate[1]", "terminate"))), cs.root());
        assertEquals(1.0 / 3, Visits.of(cs, Visits.Profile.DEFAULT).get(x), EPS);
    }

    @Test
    void singleActivityProcess() {
        CompositeService cs = parse(process("<invoke partnerLink=\"p\" operation=\"o\"/>"));
        assertEquals(new Invoke("/process/invoke[1]", TaskRef.of("P", "p", "o")), cs.root());
        assertEquals(List.of(TaskRef.of("P", "p", "o")), cs.tasks());
    }

    /** A process named P whose only activity is {@code body}. */
    static String process(String body) {
        return "<process name=\"P\" targetNamespace=\"urn:p\" xmlns=\"" + BPEL20 + "\">" + body + "</process>";
    }
}
