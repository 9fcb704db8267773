package io.moses.mdal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.PayloadMapping;
import io.moses.model.TaskRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON forms of the composite-service structure and of payload mappings. Written by hand (not
 * by reflection) so the stored format is explicit and stays stable as the records evolve.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static String compositeToJson(CompositeService cs) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("format", 1);
        n.put("name", cs.name());
        n.put("namespace", cs.namespace());
        ArrayNode tasks = n.putArray("tasks");
        cs.tasks().forEach(t -> tasks.add(t.name()));
        n.set("root", activity(cs.root()));
        return write(n);
    }

    static CompositeService compositeFromJson(String json) {
        JsonNode n = read(json);
        String name = n.path("name").asText();
        List<TaskRef> tasks = new ArrayList<>();
        n.path("tasks").forEach(t -> tasks.add(new TaskRef(name, t.asText())));
        String ns = n.path("namespace").isNull() ? null : n.path("namespace").asText(null);
        return new CompositeService(name, ns, tasks, activity(n.path("root"), name));
    }

    private static ObjectNode activity(Activity a) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("id", a.id());
        // Java 17: no pattern switch; the tree has seven node kinds.
        if (a instanceof Activity.Invoke i) {
            n.put("type", "invoke");
            n.put("task", i.task().name());
        } else if (a instanceof Activity.Sequence s) {
            n.put("type", "sequence");
            children(n, s.children());
        } else if (a instanceof Activity.Flow f) {
            n.put("type", "flow");
            children(n, f.branches());
        } else if (a instanceof Activity.Choice c) {
            n.put("type", "choice");
            n.put("kind", c.kind().name());
            children(n, c.branches());
        } else if (a instanceof Activity.Loop l) {
            n.put("type", "loop");
            n.put("kind", l.kind().name());
            n.set("body", activity(l.body()));
        } else if (a instanceof Activity.ParallelForEach p) {
            n.put("type", "parallelForEach");
            n.set("body", activity(p.body()));
        } else if (a instanceof Activity.NoOp o) {
            n.put("type", "noop");
            n.put("kind", o.kind());
        } else {
            throw new IllegalArgumentException("unknown activity " + a.getClass());
        }
        return n;
    }

    private static void children(ObjectNode n, List<Activity> children) {
        ArrayNode arr = n.putArray("children");
        children.forEach(c -> arr.add(activity(c)));
    }

    private static Activity activity(JsonNode n, String composite) {
        String id = n.path("id").asText();
        String type = n.path("type").asText();
        return switch (type) {
            case "invoke" -> new Activity.Invoke(id, new TaskRef(composite, n.path("task").asText()));
            case "sequence" -> new Activity.Sequence(id, children(n, composite));
            case "flow" -> new Activity.Flow(id, children(n, composite));
            case "choice" -> new Activity.Choice(id, Activity.Choice.Kind.valueOf(n.path("kind").asText()), children(n, composite));
            case "loop" -> new Activity.Loop(id, Activity.Loop.Kind.valueOf(n.path("kind").asText()), activity(n.path("body"), composite));
            case "parallelForEach" -> new Activity.ParallelForEach(id, activity(n.path("body"), composite));
            case "noop" -> new Activity.NoOp(id, n.path("kind").asText(null));
            default -> throw new KnowledgeBaseException(KnowledgeBaseException.Kind.INTERNAL,
                    "stored structure of composite service '" + composite + "' has an unknown activity type '" + type + "'");
        };
    }

    private static List<Activity> children(JsonNode n, String composite) {
        List<Activity> out = new ArrayList<>();
        n.path("children").forEach(c -> out.add(activity(c, composite)));
        return out;
    }

    /** Null for the identity mapping. */
    static String mappingToJson(PayloadMapping m) {
        if (m == null || m.isIdentity()) return null;
        ObjectNode n = MAPPER.createObjectNode();
        n.put("operation", m.operation());
        n.put("soapAction", m.soapAction());
        ObjectNode req = n.putObject("request");
        new java.util.TreeMap<>(m.requestNames()).forEach(req::put);
        ObjectNode rep = n.putObject("reply");
        new java.util.TreeMap<>(m.replyNames()).forEach(rep::put);
        return write(n);
    }

    static PayloadMapping mappingFromJson(String json) {
        if (json == null || json.isBlank()) return PayloadMapping.IDENTITY;
        JsonNode n = read(json);
        return new PayloadMapping(n.path("operation").asText(null), n.path("soapAction").asText(null),
                names(n.path("request")), names(n.path("reply")));
    }

    private static Map<String, String> names(JsonNode n) {
        Map<String, String> m = new LinkedHashMap<>();
        n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
        return m;
    }

    private static String write(JsonNode n) {
        try {
            return MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode read(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new KnowledgeBaseException(KnowledgeBaseException.Kind.INTERNAL, "stored JSON is malformed: " + e.getOriginalMessage());
        }
    }
}
