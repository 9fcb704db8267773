package io.moses.core.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.docs.Markdown.Link;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/**
 * The docs render: every relative link and image of README.md and docs/ names a file that
 * exists, every anchor a heading of its page, every SVG is well-formed XML, and every page of
 * the benchmark journal is listed on the performance page.
 */
class DocsLinksTest {

    @Test
    void everyRelativeLinkAndImageResolves() throws Exception {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : Markdown.pages()) {
            for (Link l : Markdown.links(page)) {
                String problem = problem(l);
                checked++;
                if (problem != null) broken.add(Markdown.ROOT.relativize(page) + ":" + l.line() + ": " + l.target() + ": " + problem);
            }
        }
        assertTrue(broken.isEmpty(), broken.size() + " broken links of " + checked + ":\n" + String.join("\n", broken));
        assertTrue(checked > 50, "links were found at all: " + checked);
    }

    /** Why a link does not resolve, or null. */
    static String problem(Link l) throws IOException {
        String t = l.target();
        if (t.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) return null; // https:, mailto: ...: not ours to check
        int hash = t.indexOf('#');
        String file = URLDecoder.decode(hash < 0 ? t : t.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : t.substring(hash + 1);
        Path target = file.isEmpty() ? l.page() : l.page().getParent().resolve(file).normalize();
        if (!target.startsWith(Markdown.ROOT)) return "outside the repository";
        if (!Files.exists(target)) return "no such file";
        if (l.image() && !Files.isRegularFile(target)) return "an image that is not a file";
        if (anchor != null && !anchor.isEmpty()) {
            if (!target.toString().endsWith(".md")) return null; // a line of a source file (#L12): not checked
            Set<String> anchors = Markdown.anchors(target);
            if (!anchors.contains(anchor)) return "no heading with the anchor #" + anchor + " (there are " + anchors + ")";
        }
        return null;
    }

    @Test
    void everySvgIsWellFormed() throws Exception {
        List<Path> svgs;
        try (Stream<Path> s = Files.walk(Markdown.ROOT.resolve("docs"))) {
            svgs = s.filter(p -> p.toString().endsWith(".svg")).toList();
        }
        assertTrue(!svgs.isEmpty(), "the architecture picture is an SVG under docs/");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        for (Path svg : svgs)
            assertEquals("svg", f.newDocumentBuilder().parse(svg.toFile()).getDocumentElement().getNodeName(), svg.toString());
    }

    @Test
    void thePerformancePageListsEveryPageOfTheJournal() throws Exception {
        Path performance = Markdown.ROOT.resolve("docs/performance.md");
        Set<String> linked = new TreeSet<>();
        for (Link l : Markdown.links(performance))
            if (l.target().startsWith("benchmarks/")) linked.add(l.target().replaceAll("#.*", ""));
        Set<String> pages = new TreeSet<>();
        try (Stream<Path> s = Files.list(Markdown.ROOT.resolve("docs/benchmarks"))) {
            s.filter(p -> p.toString().endsWith(".md")).forEach(p -> pages.add("benchmarks/" + p.getFileName()));
        }
        pages.removeAll(linked);
        assertTrue(pages.isEmpty(), "docs/performance.md, \"The journal\", does not list " + pages);
    }

    @Test
    void everyPageOfTheDocsIsLinkedFromAnother() throws Exception {
        Set<Path> linked = new TreeSet<>();
        for (Path page : Markdown.pages())
            for (Link l : Markdown.links(page)) {
                String file = l.target().replaceAll("#.*", "");
                if (file.isEmpty() || file.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue;
                Path target = page.getParent().resolve(file).normalize();
                if (!target.equals(page)) linked.add(target);
            }
        List<String> orphans = new ArrayList<>();
        for (Path page : Markdown.pages())
            if (!page.getFileName().toString().equals("README.md") && !linked.contains(page)) orphans.add(Markdown.ROOT.relativize(page).toString());
        assertTrue(orphans.isEmpty(), "pages no other page links to (a newcomer never finds them): " + orphans);
    }

    @Test
    void anchorsAreGitHubs() {
        assertEquals("the-jvm-heap-and-jdk", Markdown.slug("The JVM, heap and JDK"));
        assertEquals("moses-run", Markdown.slug("`moses run`"));
        assertEquals("a-galera-knowledge-base-no-single-point-of-failure", Markdown.slug("A Galera knowledge base (no single point of failure)"));
        assertEquals("the-brokers-own-cost", Markdown.slug("The broker's own cost"));
    }
}
