package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;

/** The broker's one XML parser refuses what could read files, fetch URLs or blow up memory. */
class XmlTest {
    @TempDir Path dir;

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void parsesANamespacedDocumentFromBytesAndFromAStream() throws Exception {
        String xml = "<a:x xmlns:a='urn:a'><a:y>1</a:y></a:x>";
        for (Document d : new Document[] {Xml.parse(utf8(xml)), Xml.parse(new ByteArrayInputStream(utf8(xml)))}) {
            assertEquals("urn:a", d.getDocumentElement().getNamespaceURI());
            assertEquals("1", d.getDocumentElement().getTextContent());
        }
    }

    @Test
    void anExternalEntityIsRefusedAndTheFileNotRead() throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "top-secret-content");
        String xxe = "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY x SYSTEM '" + secret.toUri() + "'>]><d>&x;</d>";
        SAXException e = assertThrows(SAXException.class, () -> Xml.parse(utf8(xxe)));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
        assertTrue(!e.getMessage().contains("top-secret"), e.getMessage());
    }

    @Test
    void anExternalDtdIsRefused() throws Exception {
        Path dtd = Files.writeString(dir.resolve("d.dtd"), "<!ENTITY x 'from the dtd'>");
        String xml = "<!DOCTYPE d SYSTEM '" + dtd.toUri() + "'><d>&x;</d>";
        SAXException e = assertThrows(SAXException.class, () -> Xml.parse(new ByteArrayInputStream(utf8(xml))));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }

    @Test
    void anEntityBombIsRefused() {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE d [<!ENTITY l0 'lol'>");
        for (int i = 1; i <= 9; i++)
            dtd.append("<!ENTITY l").append(i).append(" '").append(("&l" + (i - 1) + ";").repeat(10)).append("'>");
        String bomb = dtd + "]><d>&l9;</d>";
        SAXException e = assertThrows(SAXException.class, () -> Xml.parse(utf8(bomb)));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }

    @Test
    void anErrorIsThrownNotPrinted() {
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertThrows(SAXException.class, () -> Xml.parse(utf8("<d><unclosed></d>")));
        } finally {
            System.setErr(err);
        }
        assertEquals("", printed.toString(StandardCharsets.UTF_8));
    }
}
