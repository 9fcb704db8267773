-- Roles and subscriptions (issue 11). Portable SQL for H2 and MySQL/MariaDB, as V1.

-- What a user may do: 'user' (call composite services, manage its own subscription) or
-- 'operator' (also manage services, processes and classes, read the admin API).
ALTER TABLE app_user ADD COLUMN role VARCHAR(20) DEFAULT 'user' NOT NULL;
ALTER TABLE app_user ADD CONSTRAINT ck_app_user_role CHECK (role IN ('user', 'operator'));

-- One row: the version of the set of subscriptions (users, their classes and rates). Every
-- change of a user bumps it under its row lock, so an admission decided on one version commits
-- only if no other subscription change came in between (replicas race for the last capacity).
CREATE TABLE subscription_head (
    id      INT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT ck_subscription_head_id CHECK (id = 1),
    CONSTRAINT ck_subscription_head_version CHECK (version >= 0)
)${tableOptions};

INSERT INTO subscription_head (id, version) VALUES (1, 0);
