# The MOSES broker (and the stub services, same image) for docker-compose.yml.
#   docker build -t moses-broker .
#   docker run moses-broker --help                          # a broker replica: moses run's options
#   docker run --entrypoint /app/stubs moses-broker --host 0.0.0.0 --port 9090
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests install \
 && mvn -B -q -pl broker-core,loadtest dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/app/lib \
 && mkdir -p /app/broker /app/loadtest \
 && cp -r broker-core/target/classes /app/broker/classes \
 && cp -r loadtest/target/classes /app/loadtest/classes \
 && cp -r bpel-processes /app/bpel-processes

# The broker is compiled for Java 17 (maven.compiler.release) and runs on 17, but on Java 25 it
# serves ~1.8x the composite requests per CPU second and warms up faster (docs/performance.md).
FROM eclipse-temurin:25-jre
# curl for the health checks; Clp and lp_solve for the optimizer (ojAlgo, pure Java, when both are absent)
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends curl coinor-libclp1 lp-solve \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /app moses
COPY --from=build /app /app
RUN printf '#!/bin/sh\nexec java -cp "/app/loadtest/classes:/app/lib/*" io.moses.loadtest.stubs.StubServer "$@"\n' > /app/stubs \
 && chmod +x /app/stubs && mkdir -p /app/work && chown moses /app/work
USER moses
WORKDIR /app
# The heap, collector and inlining ./moses run gives brokers (`./moses jvm-options`): the parallel
# collector in 256 MB holds the broker under ~450 MB at full load, where the JVM's own choice (G1,
# a quarter of the memory it sees) grows it past 1 GB; C2 inlining only callees compiled to under
# 1,000 bytes does a third less work in the first 30 s of load (docs/benchmarks/2026-11-28-request-path.md, part six).
# docker run -e JDK_JAVA_OPTIONS=... overrides.
ENV JDK_JAVA_OPTIONS="-Xmx256m -XX:+UseParallelGC -XX:InlineSmallCode=1000"
EXPOSE 8080
HEALTHCHECK --interval=2s --timeout=2s --start-period=120s CMD curl -fsS http://127.0.0.1:8080/health >/dev/null || exit 1
# exec form: the JVM is PID 1 and gets docker stop's SIGTERM (drain, then stop)
ENTRYPOINT ["java", "-cp", "/app/broker/classes:/app/lib/*", "io.moses.core.Main"]
CMD ["--host", "0.0.0.0", "--port", "8080", "--work", "/app/work", "--deploy", "/app/bpel-processes/trip-planner"]
