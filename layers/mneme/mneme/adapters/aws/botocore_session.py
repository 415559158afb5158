"""The botocore session the AWS clients come from: botocore's, with a data loader that does less work for the
same answers.

* botocore's ``Loader.load_service_model`` starts by listing every service it has data for, in each data
  directory, for the model type asked (``service-2``, ``endpoint-rule-set-1``, …): the runtime's botocore has
  ~420 service directories, so ~420 directory listings and ~900 file checks per type. It uses the list only to
  refuse a service it does not know, or to name the known ones in that error (boto/botocore#3687, open, removes
  it from the happy path). A client's creation loads two types, so the first client of a container paid both
  listings: 8–10 ms each in a python3.13 probe here. A service is in that list exactly when one of its API
  version directories holds a file of the type, in one of the same data directories (``list_available_services``
  and ``list_api_versions`` make the same check), so :class:`ServiceModelLoader` makes that check in the
  service's own directory. When it fails, botocore's own method answers, with its own ``UnknownServiceError``.
  A model found is loaded as botocore loads it: its latest API version unless one is asked, with its extras.
* Its data files are decoded into dicts, not ``OrderedDict`` (:class:`DictJSONFileLoader`).

``tests/unit/test_botocore_session.py`` compares both loaders' answers (keys' order included) and a client's
requests and parsed answers, and counts the listings; docs/performance.md §1 measures the cold start.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from botocore.exceptions import DataNotFoundError
from botocore.loaders import JSONFileLoader, Loader, instance_cache
from botocore.session import Session

#: the files botocore's JSON loader reads, in its order of preference
_ENCODINGS = ((".json", open), (".json.gz", gzip.open))


class DictJSONFileLoader(JSONFileLoader):
    """botocore's JSON file loader, decoding into dicts.

    botocore decodes its data files with ``object_pairs_hook=OrderedDict``, to keep the keys' order on Python 2.6
    (boto/botocore#51). A dict keeps it too, and the hook is a Python call per JSON object: the 1.25 MB
    ``endpoints.json`` every first client loads took 23 ms with it and 10 ms without in a python3.13 probe,
    DynamoDB's model 6.6 and 2.7 ms. botocore builds its own ``OrderedDict`` where it wants one (``model.py``).
    A file in neither form is left to botocore's own method (a botocore that reads other forms still finds them)."""

    def load_file(self, file_path: str) -> Any:
        for extension, open_file in _ENCODINGS:
            path = file_path + extension
            if Path(path).is_file():
                with open_file(path, "rb") as file:
                    return json.loads(file.read().decode("utf-8"))
        return super().load_file(file_path)


class ServiceModelLoader(Loader):
    """botocore's loader, without the listing of every service when a service's model is loaded, and with
    :class:`DictJSONFileLoader`.

    The lookup reuses two private steps of botocore's loader (finding and applying a model's extras): the Lambda
    runtime brings its own botocore, and one without them gets botocore's own method instead of an error."""

    FILE_LOADER_CLASS = DictJSONFileLoader

    @instance_cache
    def load_service_model(self, service_name: str, type_name: str, api_version: str | None = None) -> Any:
        find_extras = getattr(self, "_find_extras", None)
        extras_processor = getattr(self, "_extras_processor", None)
        if find_extras is None or extras_processor is None or not self._has_model(service_name, type_name):
            return super().load_service_model(service_name, type_name, api_version)  # and botocore's refusal
        if api_version is None:
            api_version = self.determine_latest_version(service_name, type_name)
        model = self.load_data(os.path.join(service_name, api_version, type_name))  # noqa: PTH118 - botocore's name
        extras_processor.process(model, find_extras(service_name, type_name, api_version))
        return model

    def _has_model(self, service_name: str, type_name: str) -> bool:
        """Whether ``service_name in self.list_available_services(type_name)``, from that service's directories
        (the latest version they hold is cached for the load that follows)."""
        separators = [separator for separator in (os.sep, os.altsep) if separator]
        if not service_name or service_name.startswith(".") or any(s in service_name for s in separators):
            return False  # never a directory botocore's listing names
        try:
            self.determine_latest_version(service_name, type_name)  # DataNotFoundError when no version holds one
        except DataNotFoundError:
            return False
        return True


def aws_session() -> Session:
    """A botocore session whose data loader is a :class:`ServiceModelLoader` over the search path botocore's own
    loader would use (its data, ``~/.aws/models`` and ``AWS_DATA_PATH``)."""
    session = Session()
    search_path = session.get_config_variable("data_path")
    paths = [] if search_path is None else search_path.split(os.pathsep)
    # as botocore.loaders.create_loader expands them (a Path would turn an empty entry into the working directory)
    expanded = [os.path.expanduser(os.path.expandvars(path)) for path in paths]  # noqa: PTH111
    loader = ServiceModelLoader(extra_search_paths=expanded)
    session.register_component("data_loader", loader)
    return session
