#!/usr/bin/python3
"""A platform scheduler's client of kvbench's Controller API, in Python.

Stubs from gen_stubs.sh (PYTHONPATH=OUT_DIR); Debian's python3-grpcio and python3-protobuf.

  kvbench_client.py submit SPEC.json --request-id ID [--watch]
  kvbench_client.py watch JOB | status JOB | cancel JOB | requests JOB

--controller (default $KV_CONTROLLER: host:port, or several comma-separated), --token (default
$KV_TOKEN), --ca-cert FILE (TLS with that CA; default the system roots) or --insecure.

The retry rules a client of kvbench follows (docs/kvctl.md, "Talking to a controller"):
- UNAVAILABLE means the call was not done by a leader: a controller that cannot be reached, one
  whose store is out of reach, or a standby, whose refusal names the leader in the trailing
  metadata `kvbench-leader`. Try again, at the leader named, else at the next address, with
  backoff, for as long as the caller can wait.
- A submit is retried with the same request_id: the controller returns the job that id made (the
  same spec) or ALREADY_EXISTS (another spec), never a second job.
- Any other code is the answer: INVALID_ARGUMENT (the spec, every problem named),
  NOT_FOUND, FAILED_PRECONDITION, UNAUTHENTICATED (the token).
- A watch resumes after the last position it saw.
"""

import argparse
import json
import os
import sys
import time

import grpc
from google.protobuf import json_format

from kvbench.v1 import controller_service_pb2 as api
from kvbench.v1 import controller_service_pb2_grpc as api_grpc
from kvbench.v1 import event_pb2
from kvbench.v1 import job_pb2

ENDED = {event_pb2.JOB_STATE_SUCCEEDED, event_pb2.JOB_STATE_FAILED, event_pb2.JOB_STATE_CANCELLED}


class Controllers:
    """The controllers' addresses, the one dialled now, and a stub per address."""

    def __init__(self, args):
        self.addresses = [a.strip() for a in (args.controller or "").split(",") if a.strip()]
        if not self.addresses:
            sys.exit("kvbench_client: no controller: set KV_CONTROLLER or --controller")
        self.current = 0
        self.args = args
        self.stubs = {}
        self.metadata = [("authorization", f"Bearer {args.token}")] if args.token else []

    def stub(self):
        address = self.addresses[self.current]
        if address not in self.stubs:
            if self.args.insecure:
                channel = grpc.insecure_channel(address)
            else:
                roots = open(self.args.ca_cert, "rb").read() if self.args.ca_cert else None
                channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(roots))
            self.stubs[address] = api_grpc.ControllerStub(channel)
        return self.stubs[address]

    def move_on(self, error):
        """After UNAVAILABLE: to the leader a standby named, else to the next address."""
        leader = dict(error.trailing_metadata() or ()).get("kvbench-leader")
        if leader:
            if leader not in self.addresses:
                self.addresses.append(leader)
            self.current = self.addresses.index(leader)
        else:
            self.current = (self.current + 1) % len(self.addresses)

    def call(self, method, request, retry_for):
        """One unary call, tried again on UNAVAILABLE for up to retry_for seconds."""
        give_up = time.monotonic() + retry_for
        backoff = 0.2
        while True:
            try:
                return getattr(self.stub(), method)(request, metadata=self.metadata, timeout=30)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() >= give_up:
                    raise
                print(f"kvbench_client: {method}: {error.details()}; trying again", file=sys.stderr)
                self.move_on(error)
                time.sleep(backoff)
                backoff = min(backoff * 2, 2.0)


def spec_from_file(path):
    """A job spec file as kvctl reads it: enum names in any case ("sim", "cpu_ram")."""

    def normalize(value, descriptor):
        for field in descriptor.fields:
            if field.json_name in value and field.name not in value:
                value[field.name] = value.pop(field.json_name)
            if field.name not in value:
                continue
            items = value[field.name] if isinstance(value[field.name], list) else [value[field.name]]
            if field.enum_type is not None:
                names = {name.upper() for name in field.enum_type.values_by_name}
                items = [v.upper() if isinstance(v, str) and v.upper() in names else v for v in items]
            elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
                for item in items:
                    if isinstance(item, dict):
                        normalize(item, field.message_type)
            if field.enum_type is not None:
                value[field.name] = items if isinstance(value[field.name], list) else items[0]
        return value

    return json_format.ParseDict(normalize(json.load(open(path)), job_pb2.JobSpec.DESCRIPTOR),
                                 job_pb2.JobSpec())


def watch(controllers, job_id, retry_for):
    """Prints each event's position and the job's state until the job ends; resumes after drops."""
    position = 0
    give_up = time.monotonic() + retry_for
    while True:
        try:
            request = api.WatchJobRequest(job_id=job_id, after_position=position)
            for response in controllers.stub().WatchJob(request, metadata=controllers.metadata):
                position = response.position
                give_up = time.monotonic() + retry_for
            job = controllers.call("GetJob", api.GetJobRequest(job_id=job_id), retry_for)
            if job.state in ENDED:
                return job
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() >= give_up:
                raise
            controllers.move_on(error)
            time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--controller", default=os.environ.get("KV_CONTROLLER"))
    parser.add_argument("--token", default=os.environ.get("KV_TOKEN"))
    parser.add_argument("--ca-cert", default=os.environ.get("KV_CA_CERT"))
    parser.add_argument("--insecure", action="store_true",
                        default=os.environ.get("KV_INSECURE") == "1")
    parser.add_argument("--retry-for", type=float, default=60.0,
                        help="seconds to keep trying an UNAVAILABLE controller (default 60)")
    commands = parser.add_subparsers(dest="command", required=True)
    submit = commands.add_parser("submit")
    submit.add_argument("spec")
    submit.add_argument("--request-id", required=True,
                        help="the idempotency key: the same id again returns the same job")
    submit.add_argument("--watch", action="store_true")
    for name in ("watch", "status", "cancel", "requests"):
        commands.add_parser(name).add_argument("job_id")
    args = parser.parse_args()
    controllers = Controllers(args)
    try:
        if args.command == "submit":
            spec = spec_from_file(args.spec)
            request = api.SubmitJobRequest(spec=spec, request_id=args.request_id)
            job_id = controllers.call("SubmitJob", request, args.retry_for).job_id
            print(json.dumps({"job_id": job_id}))
            if args.watch:
                print(json_format.MessageToJson(watch(controllers, job_id, args.retry_for)))
        elif args.command == "watch":
            job = watch(controllers, args.job_id, args.retry_for)
            print(json.dumps({"job_id": job.job_id, "state": event_pb2.JobState.Name(job.state)}))
        elif args.command == "status":
            job = controllers.call("GetJob", api.GetJobRequest(job_id=args.job_id), args.retry_for)
            print(json_format.MessageToJson(job))
        elif args.command == "cancel":
            request = api.CancelJobRequest(job_id=args.job_id, reason="cancelled by the scheduler")
            job = controllers.call("CancelJob", request, args.retry_for)
            print(json.dumps({"job_id": job.job_id, "state": event_pb2.JobState.Name(job.state)}))
        elif args.command == "requests":
            token = ""
            while True:  # every page: each scenario's request rows
                request = api.ListRequestsRequest(job_id=args.job_id, page_token=token)
                page = controllers.call("ListRequests", request, args.retry_for)
                for scenario in page.scenarios:
                    for row in scenario.records.rows:
                        line = json_format.MessageToDict(row, preserving_proto_field_name=True)
                        line.update(scenario_id=scenario.scenario_id, agent_id=scenario.agent_id)
                        print(json.dumps(line))
                token = page.next_page_token
                if not token:
                    break
    except grpc.RpcError as error:
        print(f"kvbench_client: {error.code().name}: {error.details()}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
