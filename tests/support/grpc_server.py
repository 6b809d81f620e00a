#!/usr/bin/python3
"""A gRPC server nobody here wrote the protocol of: Debian's python3-grpcio, with a generic
handler (no generated code) for the service of tests/e2e/data/shop.proto:

  shop.Carts/Get    (unary)             a GetRequest in, a Cart out: items ["<user>"]
  shop.Carts/Watch  (server streaming)  a GetRequest in, --stream Carts out
  shop.Carts/Upload (client streaming)  GetRequests in, one Cart out: every request's user
  shop.Carts/Chat   (bidirectional)     a Cart out for each GetRequest in: items ["<user>"]

Each request is parsed with python3-protobuf (the descriptor built here, field for field as in
shop.proto): a call whose message does not parse is counted as malformed and answered
INVALID_ARGUMENT. Every --abort-every-th call (in order of arrival) ends UNAVAILABLE instead;
--delay-ms waits before answering. On SIGTERM it writes its counts to --counts as JSON:
calls, well_formed, malformed, aborted, distinct_users, deadlines (calls that carried a
grpc-timeout), cancelled (calls the client gave up on) and most_messages (the most request
messages in one call), bearers (calls whose authorization metadata is "Bearer u..."); well_formed
and malformed count request messages.
"""
import argparse
import json
import signal
import threading
import time
from concurrent import futures

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory


def shop_messages():
    """GetRequest and Cart, as shop.proto declares them."""
    f = descriptor_pb2.FileDescriptorProto(name="shop.proto", package="shop", syntax="proto3")
    m = f.message_type.add(name="GetRequest")
    m.field.add(name="user", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, json_name="user")
    m.field.add(name="count", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, json_name="count")
    c = f.message_type.add(name="Cart")
    c.field.add(name="items", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED, json_name="items")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    factory = message_factory.MessageFactory(pool)
    return (factory.GetPrototype(pool.FindMessageTypeByName("shop.GetRequest")),
            factory.GetPrototype(pool.FindMessageTypeByName("shop.Cart")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--counts", required=True)
    parser.add_argument("--abort-every", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--stream", type=int, default=3)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    args = parser.parse_args()
    get_request, cart = shop_messages()
    lock = threading.Lock()
    counts = {"calls": 0, "well_formed": 0, "malformed": 0, "aborted": 0, "deadlines": 0,
              "cancelled": 0, "most_messages": 0, "bearers": 0}
    users = set()

    def parse(raw, context):
        """One request message, counted; a malformed one ends the call."""
        try:
            request = get_request.FromString(raw)
        except Exception:  # pylint: disable=broad-except
            with lock:
                counts["malformed"] += 1
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "not a shop.GetRequest")
        with lock:
            counts["well_formed"] += 1
            users.add(request.user)
        return request

    def begin(raws, context):
        """Counts the call and parses its messages (one, or a stream's); a list of them, or
        None once the call has been ended."""
        with lock:
            counts["calls"] += 1
            number = counts["calls"]
            if context.time_remaining() is not None:
                counts["deadlines"] += 1
            metadata = dict(context.invocation_metadata())
            if metadata.get("authorization", "").startswith("Bearer u"):
                counts["bearers"] += 1
        requests = [parse(raw, context) for raw in raws]
        with lock:
            counts["most_messages"] = max(counts["most_messages"], len(requests))
        if args.delay_ms:
            time.sleep(args.delay_ms / 1000)
            if not context.is_active():
                with lock:
                    counts["cancelled"] += 1
                return None
        if args.abort_every and number % args.abort_every == 0:
            with lock:
                counts["aborted"] += 1
            context.abort(grpc.StatusCode.UNAVAILABLE, "every --abort-every-th call")
        return requests

    def get(raw, context):
        requests = begin([raw], context)
        return b"" if requests is None else cart(items=[requests[0].user]).SerializeToString()

    def watch(raw, context):
        requests = begin([raw], context)
        if requests is None:
            return
        for k in range(args.stream):
            yield cart(items=[requests[0].user, str(k)]).SerializeToString()

    def upload(raws, context):
        requests = begin(raws, context)
        return b"" if requests is None else cart(
            items=[r.user for r in requests]).SerializeToString()

    def chat(raws, context):
        """Answers each message as it comes, while the client may still be sending."""
        if begin([], context) is None:
            return
        n = 0
        for raw in raws:
            n += 1
            yield cart(items=[parse(raw, context).user]).SerializeToString()
        with lock:
            counts["most_messages"] = max(counts["most_messages"], n)

    identity = lambda b: b  # noqa: E731  The bytes go through as they are.
    handler = grpc.method_handlers_generic_handler("shop.Carts", {
        "Get": grpc.unary_unary_rpc_method_handler(get, identity, identity),
        "Watch": grpc.unary_stream_rpc_method_handler(watch, identity, identity),
        "Upload": grpc.stream_unary_rpc_method_handler(upload, identity, identity),
        "Chat": grpc.stream_stream_rpc_method_handler(chat, identity, identity),
    })
    # No SO_REUSEPORT (grpcio's default): a port someone else holds is refused, not shared.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), handlers=[handler],
                         options=[("grpc.so_reuseport", 0)])
    address = f"127.0.0.1:{args.port}"
    if args.tls_cert:
        with open(args.tls_cert, "rb") as c, open(args.tls_key, "rb") as k:
            credentials = grpc.ssl_server_credentials([(k.read(), c.read())])
        bound = server.add_secure_port(address, credentials)
    else:
        bound = server.add_insecure_port(address)
    if bound != args.port:
        raise SystemExit(f"grpc_server: could not listen on {address}")
    server.start()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    stopped.wait()
    server.stop(grace=1).wait()
    with lock:
        counts["distinct_users"] = len(users)
        with open(args.counts, "w", encoding="utf-8") as out:
            json.dump(counts, out)


if __name__ == "__main__":
    main()
