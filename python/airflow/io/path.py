"""ObjectStoragePath as a DAG file builds it at parse time (2.10.3
airflow/io/path.py): a URL joined with "/"; airlite opens no object
storage."""


class ObjectStoragePath:
    def __init__(self, url, *parts, conn_id=None, **_):
        self._url = "/".join([str(url).rstrip("/")] + [str(p).strip("/") for p in parts])
        self.conn_id = conn_id

    def __truediv__(self, other):
        return ObjectStoragePath(self._url, other, conn_id=self.conn_id)

    def __str__(self):
        return self._url

    def __repr__(self):
        return "ObjectStoragePath(%r)" % self._url

    def __eq__(self, other):
        return isinstance(other, ObjectStoragePath) and other._url == self._url

    def __hash__(self):
        return hash(self._url)
