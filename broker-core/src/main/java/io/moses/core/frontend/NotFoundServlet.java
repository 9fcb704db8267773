package io.moses.core.frontend;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Anything not mounted: 404 with a hint. */
final class NotFoundServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
        res.setStatus(404);
        res.setContentType("text/plain; charset=utf-8");
        res.getWriter().println("no such resource: " + req.getRequestURI()
                + " (composite services are under /services/, see /health for what is deployed)");
    }
}
