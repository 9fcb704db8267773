package io.moses.adaptation;

import io.moses.model.ConcreteService;

/**
 * A concrete service as the request path calls it: its payload mapping's names compiled once,
 * when a plan or a static binding is made, instead of at every call.
 */
record Provider(ConcreteService service, PayloadAdapter.Names requestNames, PayloadAdapter.Names replyNames) {
    static Provider of(ConcreteService service) {
        return new Provider(service, PayloadAdapter.Names.of(service.mapping().requestNames()),
                PayloadAdapter.Names.of(service.mapping().replyNames()));
    }

    String name() {
        return service.name();
    }

    /** The SOAPAction a call for {@code inv} carries: the mapping's, else the invocation's own. */
    String soapAction(Invocation inv) {
        String mapped = service.mapping().soapAction();
        return mapped != null ? mapped : inv.soapAction();
    }
}
