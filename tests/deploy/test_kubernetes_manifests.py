"""The Kubernetes manifests in ``deploy/kubernetes``, checked offline the way CI can: schema-valid (strict, so an
unknown or misplaced field is an error) for every Kubernetes minor the pinned ``kubernetes-validate`` bundles,
and carrying what a hosted deployment of this server needs, with every ``KGFEGMCP_*`` name a real setting.

``kubernetes-validate`` reads the JSON schemas shipped inside its wheel and resolves ``$ref`` through an in-memory
registry that has no retriever, so it never fetches anything; the API tests run with sockets refused to hold
that.
"""

from __future__ import annotations

import copy
import fnmatch
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes_validate.utils import SchemaNotFoundError, ValidationError, all_versions, major_minor, validate

from checkout import REPOSITORY_ROOT
from kgfegmcp.core.config import BackendSettings, load_settings
from kgfegmcp.http_transport.auth import auth_provider, is_loopback, require_auth_for_public_bind

MANIFESTS = REPOSITORY_ROOT / "deploy" / "kubernetes"
DOCKERFILE = REPOSITORY_ROOT / "deploy" / "docker" / "Dockerfile"
DOCKERIGNORE = REPOSITORY_ROOT / ".dockerignore"

# kubernetes-validate==1.37.0 (pyproject.toml) bundles the schemas of Kubernetes 1.25 to 1.37. The manifests
# must be valid for all of them: 1.37 is the newest release and 1.25 is long out of upstream support, so a
# field too new for a cluster an operator may still run fails here first. The CLI run uses
# the newest, the library's own default.
SUPPORTED_VERSIONS = tuple(f"1.{minor}" for minor in range(25, 38))
PINNED_VERSION = SUPPORTED_VERSIONS[-1]
SETTINGS = frozenset(f"KGFEGMCP_{name.upper()}" for name in BackendSettings.model_fields)
Manifest = dict[str, Any]


def manifest_files() -> list[Path]:
    """Every manifest an operator may apply (examples included); kustomization.yaml is kustomize's, not the API's."""
    return sorted(path for path in MANIFESTS.glob("*.yaml") if path.name != "kustomization.yaml")


def load_documents(path: Path) -> list[Manifest]:
    """The YAML documents of one file, empty ones skipped (as kubectl does)."""
    return [document for document in yaml.safe_load_all(path.read_text(encoding="utf-8")) if document]


ALL_DOCUMENTS = [(path.name, document) for path in manifest_files() for document in load_documents(path)]


def manifest(kind: str, name: str | None = None) -> Manifest:
    """The one document of ``kind`` (and ``name``); a second or a missing one is a test failure."""
    found = [
        document
        for _, document in ALL_DOCUMENTS
        if document["kind"] == kind and (name is None or document["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def pod_spec() -> Manifest:
    """The Deployment's pod template spec."""
    spec: Manifest = manifest("Deployment")["spec"]["template"]["spec"]
    return spec


def server_container() -> Manifest:
    """The server container (the only one)."""
    containers = pod_spec()["containers"]
    assert len(containers) == 1
    container: Manifest = containers[0]
    return container


def config_data() -> dict[str, str]:
    """The settings the ConfigMap passes to the container."""
    data: dict[str, str] = manifest("ConfigMap", "kgfegmcp-config")["data"]
    return data


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """Whether an equality selector matches a label set."""
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def volume_at(mount_path: str) -> Manifest:
    """The volume (with its mount's ``readOnly``) mounted at ``mount_path`` in the server container."""
    mounts = [mount for mount in server_container()["volumeMounts"] if mount["mountPath"] == mount_path]
    assert len(mounts) == 1, f"nothing mounted at {mount_path}"
    volumes = [volume for volume in pod_spec()["volumes"] if volume["name"] == mounts[0]["name"]]
    assert len(volumes) == 1
    return {**volumes[0], "mountReadOnly": mounts[0].get("readOnly", False)}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection or name lookup fails the test: validation must use only the schemas on disk."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("kubernetes-validate tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def strict_errors(document: Manifest, version: str) -> list[str]:
    """Why ``document`` fails strict validation for ``version``; an unknown kind is an error, not a warning."""
    try:
        validate(document, version, strict=True)
    except ValidationError as exc:
        path = ".".join(str(part) for part in exc.path)
        return [f"{path}: {exc.message}"]
    except SchemaNotFoundError as exc:
        return [exc.message]
    return []


def test_the_pinned_validator_bundles_exactly_the_supported_versions() -> None:
    """Upgrading kubernetes-validate changes what 'valid' means: this says so rather than drifting silently."""
    assert sorted({major_minor(version) for version in all_versions()}, key=lambda v: int(v.split(".")[1])) == list(
        SUPPORTED_VERSIONS
    )


def test_every_manifest_was_found() -> None:
    """The checks below mean nothing if the glob finds nothing."""
    kinds = {document["kind"] for _, document in ALL_DOCUMENTS}
    assert {"Deployment", "Service", "PodDisruptionBudget", "ConfigMap", "Secret", "PersistentVolumeClaim"} <= kinds


@pytest.mark.usefixtures("no_network")
@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_manifest_is_strictly_valid(version: str) -> None:
    """Each document against the strict schema of one Kubernetes minor."""
    problems = {f"{name} {document['kind']}": strict_errors(document, version) for name, document in ALL_DOCUMENTS}
    assert {where: errors for where, errors in problems.items() if errors} == {}


def test_the_command_line_validates_every_manifest() -> None:
    """The command an operator or CI runs; it exits 0 on a kind it has no schema for, so each line is read too."""
    files = [str(path.relative_to(REPOSITORY_ROOT)) for path in manifest_files()]
    result = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", PINNED_VERSION, *files],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(lines) == len(ALL_DOCUMENTS)
    assert all(line.startswith("INFO ") and "passed for resource" in line for line in lines), result.stdout


def _misplaced_field(deployment: Manifest) -> None:
    """readOnlyRootFilesystem belongs in a container's securityContext; in the pod spec it would be ignored."""
    deployment["spec"]["template"]["spec"]["readOnlyRootFilesystem"] = True


def _wrong_type(deployment: Manifest) -> None:
    deployment["spec"]["replicas"] = "two"


def _misspelt_probe_field(deployment: Manifest) -> None:
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/readyz"


def _misspelt_kind(deployment: Manifest) -> None:
    deployment["kind"] = "Deploymnet"


BREAKAGES: dict[str, tuple[Callable[[Manifest], None], str]] = {
    "misplaced field": (_misplaced_field, "'readOnlyRootFilesystem' was unexpected"),
    "wrong type": (_wrong_type, "'two' is not of type 'integer'"),
    "misspelt probe field": (_misspelt_probe_field, "'paht' was unexpected"),
    "misspelt kind": (_misspelt_kind, "Couldn't find schema for kind Deploymnet"),
}


@pytest.mark.usefixtures("no_network")
@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_copy_is_rejected(breakage: str) -> None:
    """The validation can fail: each deliberately broken copy of the Deployment is refused, for the reason given."""
    broken = copy.deepcopy(manifest("Deployment"))
    mutate, reason = BREAKAGES[breakage]
    mutate(broken)
    errors = strict_errors(broken, PINNED_VERSION)
    assert errors and reason in errors[0], errors


def test_the_command_line_rejects_a_broken_file(tmp_path: Path) -> None:
    """Exit status 1 and an ERROR line for an unknown field, as CI would see it."""
    broken = copy.deepcopy(manifest("Deployment"))
    _misplaced_field(broken)
    path = tmp_path / "deployment.yaml"
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", PINNED_VERSION, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("ERROR ") and "readOnlyRootFilesystem" in result.stdout


def test_replicas_are_spread_over_nodes_and_protected_by_a_budget() -> None:
    """Two replicas at least, on different nodes, and a drain may take only one of them at a time."""
    deployment = manifest("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["replicas"] >= 2
    assert selects(deployment["spec"]["selector"]["matchLabels"], labels)
    by_host = [
        constraint
        for constraint in pod_spec().get("topologySpreadConstraints", [])
        if constraint["topologyKey"] == "kubernetes.io/hostname"
    ]
    assert by_host and all(selects(c["labelSelector"]["matchLabels"], labels) for c in by_host)
    assert by_host[0]["whenUnsatisfiable"] == "DoNotSchedule"
    budget = manifest("PodDisruptionBudget")
    assert selects(budget["spec"]["selector"]["matchLabels"], labels)
    assert 1 <= budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]


def test_the_service_reaches_the_server_port() -> None:
    """ClusterIP port 80 to the container port the server listens on (KGFEGMCP_HTTP_PORT)."""
    service = manifest("Service")
    labels = manifest("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["type"] == "ClusterIP"
    assert selects(service["spec"]["selector"], labels)
    (port,) = service["spec"]["ports"]
    (container_port,) = server_container()["ports"]
    assert port["port"] == 80
    assert port["targetPort"] in (container_port["name"], container_port["containerPort"])
    assert container_port["containerPort"] == int(config_data()["KGFEGMCP_HTTP_PORT"]) == 8765


def test_probes_use_the_health_and_readiness_endpoints() -> None:
    """Liveness on /healthz, readiness on /readyz, and a start-up probe that allows for catalog verification."""
    container = server_container()
    port_name = container["ports"][0]["name"]
    paths = {
        probe: container[probe]["httpGet"]["path"] for probe in ("livenessProbe", "readinessProbe", "startupProbe")
    }
    assert paths == {"livenessProbe": "/healthz", "readinessProbe": "/readyz", "startupProbe": "/healthz"}
    assert all(container[probe]["httpGet"]["port"] == port_name for probe in paths)
    startup = container["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 120  # a cold start of the default catalog: ~6 s
    grace = pod_spec()["terminationGracePeriodSeconds"]
    pause = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pause[0] == "sleep" and int(pause[1]) < grace


def test_the_pod_runs_locked_down() -> None:
    """Non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp, read-only root file system."""
    pod = pod_spec()
    container = server_container()["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["readOnlyRootFilesystem"] is True
    assert container["allowPrivilegeEscalation"] is False
    assert container["capabilities"] == {"drop": ["ALL"]}
    assert pod["automountServiceAccountToken"] is False
    namespace = manifest("Namespace")["metadata"]["labels"]
    assert namespace["pod-security.kubernetes.io/enforce"] == "restricted"


def test_service_links_are_off() -> None:
    """A Service named kgfegmcp makes Kubernetes inject KGFEGMCP_SERVICE_HOST, KGFEGMCP_PORT, …; the server
    refuses unknown KGFEGMCP_* variables, so with service links on the pod would never start."""
    assert pod_spec()["enableServiceLinks"] is False
    injected = f"{manifest('Service')['metadata']['name'].upper().replace('-', '_')}_SERVICE_HOST"
    assert injected.startswith("KGFEGMCP_") and injected not in SETTINGS


def test_packages_are_read_only_and_the_cache_is_scratch() -> None:
    """The package root is a read-only claim; the derived cache and /tmp are emptyDirs (the root fs is read-only)."""
    settings = config_data()
    packages = volume_at(settings["KGFEGMCP_GRAPH_PACKAGES_DIR"])
    assert packages["mountReadOnly"] is True
    assert packages["persistentVolumeClaim"]["readOnly"] is True
    claim = manifest("PersistentVolumeClaim", packages["persistentVolumeClaim"]["claimName"])
    assert claim["spec"]["accessModes"] == ["ReadOnlyMany"]
    assert "emptyDir" in volume_at(settings["KGFEGMCP_CACHE_DIR"])
    assert "emptyDir" in volume_at("/tmp")
    cache, root = Path(settings["KGFEGMCP_CACHE_DIR"]), Path(settings["KGFEGMCP_GRAPH_PACKAGES_DIR"])
    assert root not in cache.parents and cache != root


def test_the_token_digests_come_from_the_secret() -> None:
    """KGFEGMCP_AUTH_TOKEN_SHA256_FILE names a file of the mounted Secret; the cursor secret is the Secret's too."""
    token_file = Path(config_data()["KGFEGMCP_AUTH_TOKEN_SHA256_FILE"])
    auth = volume_at(str(token_file.parent))
    assert auth["mountReadOnly"] is True
    secret = manifest("Secret")
    assert auth["secret"]["secretName"] == secret["metadata"]["name"]
    assert {"key": "token-sha256", "path": token_file.name} in auth["secret"]["items"]
    references = {
        entry["name"]: entry["valueFrom"]["secretKeyRef"]
        for entry in server_container().get("env", [])
        if "secretKeyRef" in entry.get("valueFrom", {})
    }
    assert references["KGFEGMCP_CURSOR_SECRET"]["name"] == secret["metadata"]["name"]
    assert set(secret["stringData"]) == {"token-sha256", references["KGFEGMCP_CURSOR_SECRET"]["key"]}


def test_resources_are_requested_and_limited() -> None:
    """The scheduler needs requests; a runaway replica must hit its limit, not the node's."""
    resources = server_container()["resources"]
    for bound in ("requests", "limits"):
        assert set(resources[bound]) >= {"cpu", "memory"}


def dockerfile_settings() -> set[str]:
    """The KGFEGMCP_* names the image sets with ENV."""
    return set(re.findall(r"\b(KGFEGMCP_[A-Z0-9_]+)=", DOCKERFILE.read_text(encoding="utf-8")))


def test_every_variable_is_a_setting() -> None:
    """An unknown KGFEGMCP_* name stops the server at start, so each one set anywhere must be a BackendSettings field."""
    names = set(config_data()) | {entry["name"] for entry in server_container().get("env", [])} | dockerfile_settings()
    assert {name for name in names if name.startswith("KGFEGMCP_")} - SETTINGS == set()
    assert all(name in SETTINGS for name in config_data())


@pytest.fixture
def pod_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The process environment of a pod: the ConfigMap and the example Secret, nothing else of KGFEGMCP_*.

    The token file is the example Secret's, written where the test can read it. Yields its path.
    """
    for name in [name for name in os.environ if name.upper().startswith("KGFEGMCP_")]:
        monkeypatch.delenv(name)
    secret = manifest("Secret")["stringData"]
    token_file = tmp_path / "token-sha256"
    token_file.write_text(secret["token-sha256"], encoding="utf-8")
    for name, value in config_data().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("KGFEGMCP_AUTH_TOKEN_SHA256_FILE", str(token_file))
    monkeypatch.setenv("KGFEGMCP_CURSOR_SECRET", secret["cursor-secret"])
    yield token_file


def test_the_pod_settings_load_and_authentication_allows_the_public_bind(pod_environment: Path) -> None:
    """The values themselves pass the server's own checks (JSON lists, ranges, cache outside the packages), and
    the non-loopback bind is allowed because the Secret's digests configure authentication."""
    settings = load_settings()
    assert not is_loopback(settings.http_host)
    assert settings.allow_unauthenticated_public_bind is False
    auth = auth_provider(settings)
    assert auth is not None
    assert require_auth_for_public_bind(settings, auth) is False


def test_allowed_hosts_cover_the_ingress_and_the_service_names(pod_environment: Path) -> None:
    """With KGFEGMCP_HTTP_ALLOWED_HOSTS set, any other Host is answered 421, even on a pod: the Ingress host and
    the Service's in-cluster names must match an entry."""
    allowed = load_settings().http_allowed_hosts or []
    service = manifest("Service")["metadata"]["name"]
    namespace = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text(encoding="utf-8"))["namespace"]
    ingress_hosts = [rule["host"] for rule in manifest("Ingress")["spec"]["rules"]]
    wanted = [*ingress_hosts, service, f"{service}.{namespace}.svc", f"{service}.{namespace}.svc.cluster.local"]
    assert [host for host in wanted if not any(fnmatch.fnmatchcase(host, pattern) for pattern in allowed)] == []


def test_kustomization_applies_everything_but_the_examples() -> None:
    """`kubectl apply -k` must never overwrite a real Secret, PersistentVolume or Ingress with a placeholder."""
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text(encoding="utf-8"))
    listed = set(kustomization["resources"])
    files = {path.name for path in manifest_files()}
    examples = {name for name in files if name.endswith(".example.yaml")}
    assert listed == files - examples
    assert examples == {"secret.example.yaml", "persistentvolume.example.yaml", "ingress.example.yaml"}
    assert manifest("Namespace")["metadata"]["name"] == kustomization["namespace"]


def test_the_image_runs_as_the_pod_user_and_bakes_in_no_packages() -> None:
    """runAsNonRoot needs the image's numeric user; curriculum text is mounted, never copied into the image."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.MULTILINE)
    user = re.findall(r"^USER (\d+):(\d+)$", text, re.MULTILINE)
    security = pod_spec()["securityContext"]
    assert user == [(str(security["runAsUser"]), str(security["runAsGroup"]))]
    copied = re.findall(r"^COPY (?!--from)(.+)$", text, re.MULTILINE)
    assert copied and not any("data" in line for line in copied)
    ignored = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    assert "*" in ignored and not any(line.startswith("!data") for line in ignored)
    assert manifest("Deployment")["spec"]["template"]["spec"]["containers"][0]["image"].startswith("kgfegmcp:")
