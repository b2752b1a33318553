"""What each database server must report in cache mode `minimal`, in its own words
(`DatabaseTarget.effective_settings`); shared by the target tests."""

MINIMAL_SETTINGS = {
    "mariadb": {
        "innodb_buffer_pool_size": str(6 * 1024 * 1024),
        "innodb_flush_method": "O_DIRECT",
        "query_cache_type": "OFF",
        "query_cache_size": "0",
    },
    "postgres": {"shared_buffers": "1MB", "effective_cache_size": "1MB"},
    "redis": {"appendonly": "yes", "appendfsync": "always", "save": ""},
    "cassandra": {
        "key_cache_size": "0MiB",
        "row_cache_size": "0MiB",
        "counter_cache_size": "0MiB",
        "file_cache_enabled": "false",
    },
    "ferretdb": {"cache_size": "10"},
}
