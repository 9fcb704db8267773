package io.moses.core.composition;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.TaskRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The Composition Manager's behavioral model: from a WS-BPEL process, the {@link CompositeService}
 * the optimizer plans with (docs/model.md, "Entities" and "Workflow and visits"): its tasks (one per partner-link
 * operation the process invokes) and its activity tree.
 *
 * <p>Accepts executable WS-BPEL 2.0 processes and BPEL4WS 1.1 processes. The tree keeps only what
 * matters for response time, availability, cost and visits: {@code sequence}, {@code flow},
 * {@code if}/{@code switch} and {@code pick} as choices, loops, invokes; a {@code scope} is its main
 * activity (its handlers count zero); every other activity is a no-op.
 *
 * <p>Activity ids are paths of BPEL element names, each step indexed among its siblings of the same
 * name, for example {@code /process/sequence[1]/flow[1]/invoke[2]}. They depend only on the document,
 * so they are unique and the same on every parse of the same file; measured branch probabilities and
 * loop iterations are keyed by them. The empty branch of an {@code if} without {@code else} has the
 * id {@code <if id>/else} (a {@code switch} without {@code otherwise}: {@code <switch id>/otherwise}).
 *
 * <p>Tasks are every distinct {@code partnerLink.operation} invoked anywhere in the document, in
 * document order, including invokes in fault, compensation, termination and event handlers: those
 * are still bound by the broker when they run, though they are not on the tree (visits 0).
 */
public final class BehavioralModelBuilder {
    static final String BPEL20 = "http://docs.oasis-open.org/wsbpel/2.0/process/executable";
    static final String BPEL20_ABSTRACT = "http://docs.oasis-open.org/wsbpel/2.0/process/abstract";
    static final String BPEL11 = "http://schemas.xmlsoap.org/ws/2003/03/business-process/";

    /** Activities of both versions (switch and terminate are BPEL4WS 1.1's). */
    private static final Set<String> ACTIVITIES = Set.of("assign", "compensate", "compensateScope", "empty", "exit",
            "extensionActivity", "flow", "forEach", "if", "invoke", "pick", "receive", "repeatUntil", "reply",
            "rethrow", "scope", "sequence", "throw", "validate", "wait", "while", "switch", "terminate");

    private final String source;
    private final String ns;
    private final String processName;

    private BehavioralModelBuilder(String source, String ns, String processName) {
        this.source = source;
        this.ns = ns;
        this.processName = processName;
    }

    /**
     * The behavioral model of the BPEL process in {@code bpelFile}.
     *
     * @throws IllegalArgumentException naming the file and the problem if the file does not exist, is
     *                                  not well-formed XML, has a DOCTYPE, or is not a valid BPEL process
     *                                  as far as the model needs
     * @throws UncheckedIOException     if the file exists but cannot be read
     */
    public static CompositeService build(Path bpelFile) {
        Objects.requireNonNull(bpelFile, "bpelFile");
        try (InputStream in = Files.newInputStream(bpelFile)) {
            return build(in, bpelFile.toString());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(bpelFile + ": no such BPEL file");
        } catch (IOException e) {
            throw new UncheckedIOException(bpelFile + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * The behavioral model of the BPEL process read from {@code in} (not closed here).
     *
     * @param source what to call the input in error messages, for example a file or deployment name
     */
    public static CompositeService build(InputStream in, String source) {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(source, "source");
        Element root = SecureXml.parse(in, source).getDocumentElement();
        String rootNs = root.getNamespaceURI();
        if (BPEL20_ABSTRACT.equals(rootNs) && "process".equals(root.getLocalName()))
            throw new IllegalArgumentException(source + ": an abstract WS-BPEL process is not executable");
        if (!"process".equals(root.getLocalName()) || !(BPEL20.equals(rootNs) || BPEL11.equals(rootNs)))
            throw new IllegalArgumentException(source + ": not a WS-BPEL process: the root element is "
                    + (rootNs == null ? "" : "{" + rootNs + "}") + root.getLocalName() + ", expected process in namespace "
                    + BPEL20 + " (or BPEL4WS 1.1 " + BPEL11 + ")");
        String name = root.getAttribute("name").strip();
        if (name.isEmpty()) throw new IllegalArgumentException(source + ": /process has no name attribute");
        String targetNamespace = root.getAttribute("targetNamespace").strip();
        if (targetNamespace.isEmpty())
            throw new IllegalArgumentException(source + ": /process has no targetNamespace attribute");
        BehavioralModelBuilder b = new BehavioralModelBuilder(source, rootNs, name);
        List<TaskRef> tasks = b.tasks(root);
        Activity tree = b.activity(b.onlyActivity(root));
        return new CompositeService(name, targetNamespace, tasks, tree);
    }

    /** Every invoke in the document, in document order (handlers too), checked. */
    private List<TaskRef> tasks(Element root) {
        Set<TaskRef> tasks = new LinkedHashSet<>();
        var invokes = root.getElementsByTagNameNS(ns, "invoke");
        for (int i = 0; i < invokes.getLength(); i++) tasks.add(task((Element) invokes.item(i)));
        return List.copyOf(tasks);
    }

    private TaskRef task(Element invoke) {
        String partnerLink = invoke.getAttribute("partnerLink").strip();
        String operation = invoke.getAttribute("operation").strip();
        if (partnerLink.isEmpty()) throw invalid(invoke, "has no partnerLink attribute");
        if (operation.isEmpty()) throw invalid(invoke, "has no operation attribute");
        return TaskRef.of(processName, partnerLink, operation);
    }

    private Activity activity(Element e) {
        String id = path(e);
        return switch (e.getLocalName()) {
            case "invoke" -> new Activity.Invoke(id, task(e));
            case "sequence" -> new Activity.Sequence(id, activities(e));
            case "flow" -> new Activity.Flow(id, activities(e));
            case "if" -> ifChoice(e, id);
            case "switch" -> switchChoice(e, id);
            case "pick" -> pickChoice(e, id);
            case "while" -> new Activity.Loop(id, Activity.Loop.Kind.WHILE, activity(onlyActivity(e)));
            case "repeatUntil" -> new Activity.Loop(id, Activity.Loop.Kind.REPEAT_UNTIL, activity(onlyActivity(e)));
            case "forEach" -> forEach(e, id);
            // Handlers (fault, compensation, termination, event) are not activities: they count zero.
            case "scope" -> activity(onlyActivity(e));
            default -> new Activity.NoOp(id, e.getLocalName());
        };
    }

    private Activity ifChoice(Element e, String id) {
        List<Activity> branches = new ArrayList<>();
        branches.add(activity(onlyActivity(e)));
        boolean hasElse = false;
        for (Element c : bpelChildren(e)) {
            switch (c.getLocalName()) {
                case "elseif" -> branches.add(activity(onlyActivity(c)));
                case "else" -> {
                    branches.add(activity(onlyActivity(c)));
                    hasElse = true;
                }
                default -> { }
            }
        }
        if (!hasElse) branches.add(new Activity.NoOp(id + "/else", "empty"));
        return new Activity.Choice(id, Activity.Choice.Kind.IF, branches);
    }

    /** BPEL4WS 1.1: case* otherwise?. */
    private Activity switchChoice(Element e, String id) {
        List<Activity> branches = new ArrayList<>();
        boolean hasOtherwise = false;
        for (Element c : bpelChildren(e)) {
            switch (c.getLocalName()) {
                case "case" -> branches.add(activity(onlyActivity(c)));
                case "otherwise" -> {
                    branches.add(activity(onlyActivity(c)));
                    hasOtherwise = true;
                }
                default -> { }
            }
        }
        if (branches.isEmpty()) throw invalid(e, "has no case");
        if (!hasOtherwise) branches.add(new Activity.NoOp(id + "/otherwise", "empty"));
        return new Activity.Choice(id, Activity.Choice.Kind.IF, branches);
    }

    private Activity pickChoice(Element e, String id) {
        List<Activity> branches = new ArrayList<>();
        for (Element c : bpelChildren(e))
            if (c.getLocalName().equals("onMessage") || c.getLocalName().equals("onAlarm"))
                branches.add(activity(onlyActivity(c)));
        if (branches.isEmpty()) throw invalid(e, "has no onMessage or onAlarm");
        return new Activity.Choice(id, Activity.Choice.Kind.PICK, branches);
    }

    private Activity forEach(Element e, String id) {
        Activity body = activity(onlyActivity(e));
        String parallel = e.getAttribute("parallel").strip();
        return switch (parallel) {
            case "yes" -> new Activity.ParallelForEach(id, body);
            case "no", "" -> new Activity.Loop(id, Activity.Loop.Kind.FOR_EACH, body);
            default -> throw invalid(e, "has parallel=\"" + parallel + "\", expected yes or no");
        };
    }

    private List<Activity> activities(Element parent) {
        List<Activity> out = new ArrayList<>();
        for (Element c : bpelChildren(parent)) if (ACTIVITIES.contains(c.getLocalName())) out.add(activity(c));
        return out;
    }

    /** The one activity a process, scope, loop or branch holds. */
    private Element onlyActivity(Element parent) {
        Element found = null;
        int n = 0;
        for (Element c : bpelChildren(parent)) {
            if (ACTIVITIES.contains(c.getLocalName())) {
                if (found == null) found = c;
                n++;
            }
        }
        if (n != 1) throw invalid(parent, "must contain exactly one activity, found " + n);
        return found;
    }

    /** Child elements in the process's namespace; extension elements and text are not ours. */
    private List<Element> bpelChildren(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling())
            if (c instanceof Element el && ns.equals(el.getNamespaceURI())) out.add(el);
        return out;
    }

    /** {@code /process/sequence[1]/flow[1]/invoke[2]}: each step indexed among same-named siblings. */
    private String path(Element e) {
        Node parent = e.getParentNode();
        if (!(parent instanceof Element p)) return "/" + e.getLocalName();
        int index = 1;
        for (Node s = e.getPreviousSibling(); s != null; s = s.getPreviousSibling())
            if (s instanceof Element el && e.getLocalName().equals(el.getLocalName())
                    && Objects.equals(e.getNamespaceURI(), el.getNamespaceURI())) index++;
        return path(p) + "/" + e.getLocalName() + "[" + index + "]";
    }

    private IllegalArgumentException invalid(Element e, String what) {
        String name = e.getAttribute("name");
        return new IllegalArgumentException(source + ": " + e.getLocalName() + " " + path(e)
                + (name.isEmpty() ? "" : " (name \"" + name + "\")") + " " + what);
    }
}
