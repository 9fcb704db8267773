-- The knowledge model of design/model.md, one schema for H2 and MySQL/MariaDB.
-- Portable SQL only; ${tableOptions} is empty on H2 and sets InnoDB, utf8mb4 and a binary
-- (case-sensitive) collation on MySQL/MariaDB so that names compare the same on both.
-- Times are epoch milliseconds (BIGINT): no time-zone or TIMESTAMP-range differences.
-- CHECK constraints are named ck_<table>_<column>: MDAL turns a violation into a message
-- naming <table>.<column>.

CREATE TABLE service_class (
    name              VARCHAR(100) NOT NULL,
    max_response_time DOUBLE PRECISION NOT NULL,
    min_availability  DOUBLE PRECISION NOT NULL,
    max_cost          DOUBLE PRECISION NOT NULL,
    price             DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT ck_service_class_name CHECK (CHAR_LENGTH(name) > 0),
    CONSTRAINT ck_service_class_max_response_time CHECK (max_response_time > 0),
    CONSTRAINT ck_service_class_min_availability CHECK (min_availability > 0 AND min_availability < 1),
    CONSTRAINT ck_service_class_max_cost CHECK (max_cost > 0),
    CONSTRAINT ck_service_class_price CHECK (price >= 0)
)${tableOptions};

CREATE TABLE app_user (
    name          VARCHAR(100) NOT NULL,
    class_name    VARCHAR(100) NOT NULL,
    rate          DOUBLE PRECISION NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT fk_app_user_class FOREIGN KEY (class_name) REFERENCES service_class (name),
    CONSTRAINT ck_app_user_name CHECK (CHAR_LENGTH(name) > 0),
    CONSTRAINT ck_app_user_rate CHECK (rate >= 0),
    CONSTRAINT ck_app_user_password_hash CHECK (password_hash LIKE 'pbkdf2-sha256$%')
)${tableOptions};

-- The behavioral model of a deployed composite service, as JSON (name, namespace, tasks,
-- activity tree), so that a replica can reload it whole.
CREATE TABLE composite_service (
    name       VARCHAR(100) NOT NULL,
    namespace  VARCHAR(500),
    structure  MEDIUMTEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT ck_composite_service_name CHECK (CHAR_LENGTH(name) > 0)
)${tableOptions};

-- Tasks exist apart from composite rows: a seed may describe concrete services for a process
-- that is deployed later.
CREATE TABLE task (
    composite VARCHAR(100) NOT NULL,
    name      VARCHAR(200) NOT NULL,
    PRIMARY KEY (composite, name),
    CONSTRAINT ck_task_name CHECK (CHAR_LENGTH(name) > 0)
)${tableOptions};

CREATE TABLE concrete_service (
    name          VARCHAR(100) NOT NULL,
    composite     VARCHAR(100) NOT NULL,
    task          VARCHAR(200) NOT NULL,
    endpoint      VARCHAR(2000) NOT NULL,
    response_time DOUBLE PRECISION NOT NULL,
    availability  DOUBLE PRECISION NOT NULL,
    cost          DOUBLE PRECISION NOT NULL,
    max_rate      DOUBLE PRECISION NOT NULL,
    mapping       MEDIUMTEXT,
    PRIMARY KEY (name),
    CONSTRAINT fk_concrete_service_task FOREIGN KEY (composite, task) REFERENCES task (composite, name),
    CONSTRAINT ck_concrete_service_name CHECK (CHAR_LENGTH(name) > 0),
    CONSTRAINT ck_concrete_service_response_time CHECK (response_time > 0),
    CONSTRAINT ck_concrete_service_availability CHECK (availability > 0 AND availability <= 1),
    CONSTRAINT ck_concrete_service_cost CHECK (cost >= 0),
    CONSTRAINT ck_concrete_service_max_rate CHECK (max_rate > 0)
)${tableOptions};

-- One row: the latest published plan version. Publishing locks it (UPDATE ... + 1), which
-- serializes publishers and makes versions gap-free; replicas poll it (one primary-key read).
CREATE TABLE plan_head (
    id      INT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT ck_plan_head_id CHECK (id = 1),
    CONSTRAINT ck_plan_head_version CHECK (version >= 0)
)${tableOptions};

INSERT INTO plan_head (id, version) VALUES (1, 0);

CREATE TABLE plan (
    version      BIGINT NOT NULL,
    created_ms   BIGINT NOT NULL,
    objective    DOUBLE PRECISION NOT NULL,
    solver       VARCHAR(100) NOT NULL,
    solve_millis DOUBLE PRECISION NOT NULL,
    reason       VARCHAR(2000),
    PRIMARY KEY (version),
    CONSTRAINT ck_plan_version CHECK (version > 0),
    CONSTRAINT ck_plan_solve_millis CHECK (solve_millis >= 0)
)${tableOptions};

-- x^k_iJ: the fraction of class-k requests for task i bound to implementation J.
CREATE TABLE plan_share (
    version        BIGINT NOT NULL,
    class_name     VARCHAR(100) NOT NULL,
    composite      VARCHAR(100) NOT NULL,
    task           VARCHAR(200) NOT NULL,
    position       INT NOT NULL,
    implementation VARCHAR(1000) NOT NULL,
    fraction       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (version, class_name, composite, task, position),
    CONSTRAINT fk_plan_share_plan FOREIGN KEY (version) REFERENCES plan (version) ON DELETE CASCADE,
    CONSTRAINT ck_plan_share_fraction CHECK (fraction >= 0 AND fraction <= 1)
)${tableOptions};

CREATE TABLE plan_prediction (
    version       BIGINT NOT NULL,
    class_name    VARCHAR(100) NOT NULL,
    response_time DOUBLE PRECISION NOT NULL,
    availability  DOUBLE PRECISION NOT NULL,
    cost          DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (version, class_name),
    CONSTRAINT fk_plan_prediction_plan FOREIGN KEY (version) REFERENCES plan (version) ON DELETE CASCADE,
    CONSTRAINT ck_plan_prediction_response_time CHECK (response_time >= 0),
    CONSTRAINT ck_plan_prediction_availability CHECK (availability >= 0 AND availability <= 1),
    CONSTRAINT ck_plan_prediction_cost CHECK (cost >= 0)
)${tableOptions};

CREATE TABLE plan_at_risk (
    version                BIGINT NOT NULL,
    class_name             VARCHAR(100) NOT NULL,
    response_time_excess   DOUBLE PRECISION NOT NULL,
    availability_shortfall DOUBLE PRECISION NOT NULL,
    cost_excess            DOUBLE PRECISION NOT NULL,
    breaks_sla             BOOLEAN NOT NULL,
    PRIMARY KEY (version, class_name),
    CONSTRAINT fk_plan_at_risk_plan FOREIGN KEY (version) REFERENCES plan (version) ON DELETE CASCADE
)${tableOptions};

-- Monitored parameters: the latest observation per key.
CREATE TABLE service_qos (
    service       VARCHAR(100) NOT NULL,
    response_time DOUBLE PRECISION NOT NULL,
    availability  DOUBLE PRECISION NOT NULL,
    samples       BIGINT NOT NULL,
    at_ms         BIGINT NOT NULL,
    PRIMARY KEY (service),
    CONSTRAINT fk_service_qos_service FOREIGN KEY (service) REFERENCES concrete_service (name) ON DELETE CASCADE,
    CONSTRAINT ck_service_qos_response_time CHECK (response_time >= 0),
    CONSTRAINT ck_service_qos_availability CHECK (availability >= 0 AND availability <= 1),
    CONSTRAINT ck_service_qos_samples CHECK (samples >= 0)
)${tableOptions};

CREATE TABLE visits (
    class_name VARCHAR(100) NOT NULL,
    composite  VARCHAR(100) NOT NULL,
    task       VARCHAR(200) NOT NULL,
    visits     DOUBLE PRECISION NOT NULL,
    samples    BIGINT NOT NULL,
    at_ms      BIGINT NOT NULL,
    PRIMARY KEY (class_name, composite, task),
    CONSTRAINT fk_visits_class FOREIGN KEY (class_name) REFERENCES service_class (name) ON DELETE CASCADE,
    CONSTRAINT fk_visits_task FOREIGN KEY (composite, task) REFERENCES task (composite, name),
    CONSTRAINT ck_visits_visits CHECK (visits >= 0),
    CONSTRAINT ck_visits_samples CHECK (samples >= 0)
)${tableOptions};

-- SLA events: violations, rejected admissions, periods at risk. Kept after their class or
-- user is gone (no foreign keys): they are history.
CREATE TABLE sla_event (
    id         BIGINT NOT NULL,
    at_ms      BIGINT NOT NULL,
    kind       VARCHAR(20) NOT NULL,
    class_name VARCHAR(100),
    user_name  VARCHAR(100),
    detail     VARCHAR(2000),
    PRIMARY KEY (id),
    CONSTRAINT ck_sla_event_kind CHECK (kind IN ('VIOLATION', 'REJECTION', 'AT_RISK'))
)${tableOptions};

CREATE INDEX ix_sla_event_at ON sla_event (at_ms);

-- Portable id allocation for sla_event (no AUTO_INCREMENT/IDENTITY dialects): a counter row
-- bumped in the inserting transaction.
CREATE TABLE id_counter (
    name VARCHAR(50) NOT NULL,
    next_id BIGINT NOT NULL,
    PRIMARY KEY (name)
)${tableOptions};

INSERT INTO id_counter (name, next_id) VALUES ('sla_event', 1);
