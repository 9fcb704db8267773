# The Grinder worker script of the MOSES evaluation's closed model (io.moses.evaluation.GrinderClosedModel
# writes the files and the grinder.properties it reads). Every worker thread posts SOAP requests
# back to back (think time 0) as the seed's users in turn. Workers join in steps: thread k starts
# with the first step that has more than k workers, so one Grinder run measures every step; every
# thread stops at the end of the last step. The evaluation cuts the data log into steps by time.
from net.grinder.script.Grinder import grinder
from net.grinder.script import Test
from net.grinder.plugin.http import HTTPRequest, HTTPPluginControl
from HTTPClient import NVPair
from java.lang import System, Thread
from java.lang import String as JString

props = grinder.getProperties()
URL = props.getProperty("moses.url")
SOAP_ACTION = props.getProperty("moses.soapAction")
STEPS = [int(s) for s in props.getProperty("moses.steps").split(",")]
STEP_MS = long(props.getProperty("moses.stepMillis"))
BODIES = [b for b in open(props.getProperty("moses.bodies")).read().splitlines() if b]
# one line per user: name, then the whole Authorization header value
USERS = [line.split(" ", 1) for line in open(props.getProperty("moses.users")).read().splitlines() if line]

# the steps' clock: once per worker process, a moment after the threads have started
T0 = System.currentTimeMillis() + 1000
out = open(props.getProperty("moses.t0file"), "w")
out.write(str(T0))
out.close()

HTTPPluginControl.getConnectionDefaults().setTimeout(int(props.getProperty("moses.timeoutMillis")))
request = HTTPRequest()
Test(1, "request").record(request)


def start_of(thread):
    for i in range(len(STEPS)):
        if STEPS[i] > thread:
            return T0 + i * STEP_MS
    return None


class TestRunner:
    def __init__(self):
        self.thread = grinder.threadNumber
        self.start = start_of(self.thread)
        self.end = T0 + len(STEPS) * STEP_MS
        self.n = 0
        grinder.statistics.delayReports = 1  # so a reply can be marked failed after the fact

    def __call__(self):
        if self.start is None:
            grinder.stopThisWorkerThread()
        now = System.currentTimeMillis()
        if now < self.start:
            Thread.sleep(self.start - now)
        if System.currentTimeMillis() >= self.end:
            grinder.stopThisWorkerThread()
        user, authorization = USERS[(self.thread + self.n) % len(USERS)]
        body = BODIES[(self.thread * 31 + self.n) % len(BODIES)].replace("@USER@", user)
        self.n += 1
        headers = (NVPair("Content-Type", "text/xml; charset=utf-8"),
                   NVPair("SOAPAction", '"' + SOAP_ACTION + '"'),
                   NVPair("Authorization", authorization))
        reply = request.POST(URL, JString(body).getBytes("UTF-8"), headers)
        # a SOAP fault or any status but 200 is an error, whatever Grinder thinks of the status
        if reply.getStatusCode() != 200 or reply.getText().find(":Fault>") >= 0:
            grinder.statistics.forLastTest.success = 0
