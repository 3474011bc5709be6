package main

// Airflow's default connections (Airflow 3 airflow-core/src/airflow/
// utils/db.py get_default_connections), which POST /api/v2/connections/
// defaults creates: each one whose connection_id is free (merge_conn).
// Extras are kept as JSON without Airflow's indentation: every answer
// reads a JSON extra and writes it again (ConnectionResponse's
// redact_extra), so its layout never shows.

import (
	"errors"
	"os"
	"path/filepath"
)

// defaultConn is one default connection: "" and 0 are absent fields,
// except a password given as "" (pw).
type defaultConn struct {
	id, typ, host, login, schema, extra string
	port                                int
	pw                                  *string
}

func pw(s string) *string { return &s }

// defaultConnections are get_default_connections' list, in its order.
var defaultConnections = []defaultConn{
	{id: "airflow_db", typ: "mysql", host: "mysql", login: "root", pw: pw(""), schema: "airflow"},
	{id: "athena_default", typ: "athena"},
	{id: "aws_default", typ: "aws"},
	{id: "azure_batch_default", typ: "azure_batch", login: "<ACCOUNT_NAME>", pw: pw(""), extra: `{"account_url": "<ACCOUNT_URL>"}`},
	{id: "azure_cosmos_default", typ: "azure_cosmos", extra: `{"database_name": "<DATABASE_NAME>", "collection_name": "<COLLECTION_NAME>"}`},
	{id: "azure_data_explorer_default", typ: "azure_data_explorer", host: "https://<CLUSTER>.kusto.windows.net",
		extra: `{"auth_method": "<AAD_APP | AAD_APP_CERT | AAD_CREDS | AAD_DEVICE>", "tenant": "<TENANT ID>", "certificate": "<APPLICATION PEM CERTIFICATE>", "thumbprint": "<APPLICATION CERTIFICATE THUMBPRINT>"}`},
	{id: "azure_data_lake_default", typ: "azure_data_lake", extra: `{"tenant": "<TENANT>", "account_name": "<ACCOUNTNAME>"}`},
	{id: "azure_default", typ: "azure"},
	{id: "cassandra_default", typ: "cassandra", host: "cassandra", port: 9042},
	{id: "databricks_default", typ: "databricks", host: "localhost"},
	{id: "dingding_default", typ: "http", host: "", pw: pw("")},
	{id: "drill_default", typ: "drill", host: "localhost", port: 8047, extra: `{"dialect_driver": "drill+sadrill", "storage_plugin": "dfs"}`},
	{id: "druid_broker_default", typ: "druid", host: "druid-broker", port: 8082, extra: `{"endpoint": "druid/v2/sql"}`},
	{id: "druid_ingest_default", typ: "druid", host: "druid-overlord", port: 8081, extra: `{"endpoint": "druid/indexer/v1/task"}`},
	{id: "elasticsearch_default", typ: "elasticsearch", host: "localhost", schema: "http", port: 9200},
	{id: "emr_default", typ: "emr", extra: `{"Name": "default_job_flow_name", "LogUri": "s3://my-emr-log-bucket/default_job_flow_location", "ReleaseLabel": "emr-4.6.0", ` +
		`"Instances": {"Ec2KeyName": "mykey", "Ec2SubnetId": "somesubnet", "InstanceGroups": [` +
		`{"Name": "Master nodes", "Market": "ON_DEMAND", "InstanceRole": "MASTER", "InstanceType": "r3.2xlarge", "InstanceCount": 1}, ` +
		`{"Name": "Core nodes", "Market": "ON_DEMAND", "InstanceRole": "CORE", "InstanceType": "r3.2xlarge", "InstanceCount": 1}], ` +
		`"TerminationProtected": false, "KeepJobFlowAliveWhenNoSteps": false}, "Applications": [{"Name": "Spark"}], "VisibleToAllUsers": true, ` +
		`"JobFlowRole": "EMR_EC2_DefaultRole", "ServiceRole": "EMR_DefaultRole", "Tags": [{"Key": "app", "Value": "analytics"}, {"Key": "environment", "Value": "development"}]}`},
	{id: "facebook_default", typ: "facebook_social", extra: `{"account_id": "<AD_ACCOUNT_ID>", "app_id": "<FACEBOOK_APP_ID>", "app_secret": "<FACEBOOK_APP_SECRET>", "access_token": "<FACEBOOK_AD_ACCESS_TOKEN>"}`},
	{id: "fs_default", typ: "fs", extra: `{"path": "/"}`},
	{id: "ftp_default", typ: "ftp", host: "localhost", port: 21, login: "airflow", pw: pw("airflow"), extra: `{"key_file": "~/.ssh/id_rsa", "no_host_key_check": true}`},
	{id: "google_cloud_default", typ: "google_cloud_platform", schema: "default"},
	{id: "gremlin_default", typ: "gremlin", host: "gremlin", port: 8182},
	{id: "hive_cli_default", typ: "hive_cli", port: 10000, host: "localhost", extra: `{"use_beeline": true, "auth": ""}`, schema: "default"},
	{id: "hiveserver2_default", typ: "hiveserver2", host: "localhost", schema: "default", port: 10000},
	{id: "http_default", typ: "http", host: "https://www.httpbin.org/"},
	{id: "iceberg_default", typ: "iceberg", host: "https://api.iceberg.io/ws/v1"},
	{id: "impala_default", typ: "impala", host: "localhost", port: 21050},
	{id: "kafka_default", typ: "kafka", extra: `{"bootstrap.servers": "broker:29092", "group.id": "my-group"}`},
	{id: "kubernetes_default", typ: "kubernetes"},
	{id: "kylin_default", typ: "kylin", host: "localhost", port: 7070, login: "ADMIN", pw: pw("KYLIN")},
	{id: "leveldb_default", typ: "leveldb", host: "localhost"},
	{id: "livy_default", typ: "livy", host: "livy", port: 8998},
	{id: "local_mysql", typ: "mysql", host: "localhost", login: "airflow", pw: pw("airflow"), schema: "airflow"},
	{id: "metastore_default", typ: "hive_metastore", host: "localhost", extra: `{"authMechanism": "PLAIN"}`, port: 9083},
	{id: "mongo_default", typ: "mongo", host: "mongo", port: 27017},
	{id: "mssql_default", typ: "mssql", host: "localhost", port: 1433},
	{id: "mysql_default", typ: "mysql", login: "root", schema: "airflow", host: "mysql"},
	{id: "opensearch_default", typ: "opensearch", host: "localhost", schema: "http", port: 9200},
	{id: "opsgenie_default", typ: "http", host: "", pw: pw("")},
	{id: "oracle_default", typ: "oracle", host: "localhost", login: "root", pw: pw("password"), schema: "schema", port: 1521},
	{id: "oss_default", typ: "oss", extra: `{"auth_type": "AK", "access_key_id": "<ACCESS_KEY_ID>", "access_key_secret": "<ACCESS_KEY_SECRET>", "region": "<YOUR_OSS_REGION>"}`},
	{id: "pig_cli_default", typ: "pig_cli", schema: "default"},
	{id: "pinot_admin_default", typ: "pinot", host: "localhost", port: 9000},
	{id: "pinot_broker_default", typ: "pinot", host: "localhost", port: 9000, extra: `{"endpoint": "/query", "schema": "http"}`},
	{id: "postgres_default", typ: "postgres", login: "postgres", pw: pw("airflow"), schema: "airflow", host: "postgres"},
	{id: "presto_default", typ: "presto", host: "localhost", schema: "hive", port: 3400},
	{id: "qdrant_default", typ: "qdrant", host: "qdrant", port: 6333},
	{id: "redis_default", typ: "redis", host: "redis", port: 6379, extra: `{"db": 0}`},
	{id: "redshift_default", typ: "redshift", extra: `{"iam": true, "cluster_identifier": "<REDSHIFT_CLUSTER_IDENTIFIER>", "port": 5439, "profile": "default", "db_user": "awsuser", "database": "dev", "region": ""}`},
	{id: "salesforce_default", typ: "salesforce", login: "username", pw: pw("password"), extra: `{"security_token": "security_token"}`},
	{id: "segment_default", typ: "segment", extra: `{"write_key": "my-segment-write-key"}`},
	{id: "sftp_default", typ: "sftp", host: "localhost", port: 22, login: "airflow", extra: `{"key_file": "~/.ssh/id_rsa", "no_host_key_check": true}`},
	{id: "spark_default", typ: "spark", host: "yarn", extra: `{"queue": "root.default"}`},
	{id: "sqlite_default", typ: "sqlite", host: filepath.Join(os.TempDir(), "sqlite_default.db")},
	{id: "ssh_default", typ: "ssh", host: "localhost"},
	{id: "tableau_default", typ: "tableau", host: "https://tableau.server.url", login: "user", pw: pw("password"), extra: `{"site_id": "my_site"}`},
	{id: "teradata_default", typ: "teradata", host: "localhost", login: "user", pw: pw("password"), schema: "schema"},
	{id: "trino_default", typ: "trino", host: "localhost", schema: "hive", port: 3400},
	{id: "vertica_default", typ: "vertica", host: "localhost", port: 5433},
	{id: "wasb_default", typ: "wasb", extra: `{"sas_token": null}`},
	{id: "webhdfs_default", typ: "hdfs", host: "localhost", port: 50070},
	{id: "yandexcloud_default", typ: "yandexcloud", schema: "default"},
	{id: "ydb_default", typ: "ydb", host: "grpc://localhost", port: 2135, extra: `{"database": "/local"}`},
}

// hostGiven are the default connections written with host="" (kept as
// an empty host, not none).
var hostGiven = map[string]bool{"dingding_default": true, "opsgenie_default": true}

// connection is the default as a stored connection.
func (d defaultConn) connection() Connection {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	c := Connection{ConnID: d.id, ConnType: d.typ, Host: opt(d.host), Login: opt(d.login), Schema: opt(d.schema), Password: d.pw, Extra: opt(d.extra)}
	if hostGiven[d.id] {
		empty := ""
		c.Host = &empty
	}
	if d.port != 0 {
		port := d.port
		c.Port = &port
	}
	return c
}

// createDefaultConnections adds every default connection whose
// connection_id is free (db.create_default_connections).
func (o *operations) createDefaultConnections() error {
	for _, d := range defaultConnections {
		if _, err := o.createConnection(d.connection()); err != nil && !errors.Is(err, errConflict) {
			return err
		}
	}
	return nil
}
