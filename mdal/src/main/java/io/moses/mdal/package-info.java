/**
 * MDAL, the knowledge base's data access layer: {@link io.moses.mdal.KnowledgeBase} over JDBC on
 * H2 (embedded default) or MySQL/MariaDB, with the schema's migrations, the seed loader and
 * password hashing. One package-private store per kind of record behind one facade.
 */
package io.moses.mdal;
