// A reference point, not part of trex: simdjson's On-Demand API (the
// fastest JSON parser packaged in Debian, libsimdjson-dev) reading what
// trex's loader reads of each event of a Chrome/Kineto trace - ph, cat,
// name, pid, tid, ts, dur and the link keys of args - and summing kernel
// durations per run. It builds no index and keeps no strings, so it bounds
// from below what any loader built on it would cost. run.sh times it next
// to trex when the header is installed; compiled with -march=native, as
// On-Demand picks its SIMD kernels at compile time.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>

using namespace simdjson;

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: simdjson_ref TRACE.json\n");
		return 1;
	}
	try {
		padded_string json = padded_string::load(argv[1]);
		auto t0 = std::chrono::steady_clock::now();
		std::clock_t c0 = std::clock(); // CPU time: the wall clock lies on a shared machine
		ondemand::parser parser;
		ondemand::document doc = parser.iterate(json);
		unsigned long n = 0, kernels = 0, links = 0;
		double kernel_us = 0;
		for (ondemand::object ev : doc["traceEvents"].get_array()) {
			std::string_view cat;
			double dur = 0;
			n++;
			for (auto field : ev) {
				ondemand::raw_json_string key = field.key();
				if (key.unsafe_is_equal("cat"))
					cat = field.value().get_string();
				else if (key.unsafe_is_equal("ph") || key.unsafe_is_equal("name"))
					(void)std::string_view(field.value().get_string());
				else if (key.unsafe_is_equal("ts"))
					(void)double(field.value().get_double());
				else if (key.unsafe_is_equal("dur"))
					dur = field.value().get_double();
				else if (key.unsafe_is_equal("pid") || key.unsafe_is_equal("tid"))
					(void)field.value().raw_json_token();
				else if (key.unsafe_is_equal("args"))
					for (auto arg : field.value().get_object()) {
						ondemand::raw_json_string k = arg.key();
						uint64_t id;
						if ((k.unsafe_is_equal("correlation") ||
						     k.unsafe_is_equal("External id")) &&
						    !arg.value().get_uint64().get(id))
							links++;
					}
			}
			if (cat == "kernel") {
				kernels++;
				kernel_us += dur;
			}
		}
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
		std::printf("%lu events, %lu kernels, %.3f us in kernels, %lu links\n", n, kernels,
			    kernel_us, links);
		std::printf("parse: %.3f s, %.0f MB/s (the file read into memory before); "
			    "CPU %.3f s, %.0f MB/s\n",
			    s, (double)json.size() / s / 1e6, cpu, (double)json.size() / cpu / 1e6);
	} catch (const simdjson_error &e) {
		std::fprintf(stderr, "simdjson_ref: %s: %s\n", argv[1], e.what());
		return 2;
	}
	return 0;
}
