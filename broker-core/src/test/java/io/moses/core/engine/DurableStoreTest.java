package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.*;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import javax.xml.namespace.QName;
import org.junit.jupiter.api.Test;

class DurableStoreTest {
    @Test
    void aProcessWrittenInOneTransactionIsReadInTheNext() throws Exception {
        try (KnowledgeBase kb = Mdal.open("mem:durable-store-" + System.nanoTime())) {
            LocalTransactions tx = new LocalTransactions();
            DurableStore store = new DurableStore(kb.processDatabase().orElseThrow(), tx);
            QName pid = new QName("urn:t", "P-1");
            tx.begin();
            store.dao().getConnection().createProcess(pid, new QName("urn:t", "P"), "guid", 1);
            tx.commit();
            tx.begin();
            assertNotNull(store.dao().getConnection().getProcess(pid));
            tx.commit();
            store.close();
        }
    }
}
