package org.marl4j.benchmarks

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/**
 * The coroutine workloads of [CoroutinesBenchmark], written in Kotlin (JMH's annotation processor
 * sees only Java, so the `@Benchmark` methods are Java and call these). Each runs on the given
 * dispatcher and returns only when all of its coroutines have finished; the benchmark thread waits
 * in `runBlocking`.
 */
object CoroutineWorkloads {

    /** Launches [count] no-op coroutines on [dispatcher] from a coroutine on it, and joins them all. */
    @JvmStatic
    fun launchAndJoin(dispatcher: CoroutineDispatcher, count: Int): Int = runBlocking {
        var launched = 0
        withContext(dispatcher) {
            coroutineScope {
                repeat(count) {
                    launch { }
                    launched++
                }
            }
        }
        launched
    }

    /**
     * Two coroutines on [dispatcher] pass a counter back and forth [roundTrips] times over two
     * rendezvous [Channel]s.
     */
    @JvmStatic
    fun channelPingPong(dispatcher: CoroutineDispatcher, roundTrips: Int): Int = runBlocking {
        val ping = Channel<Int>()
        val pong = Channel<Int>()
        var last = 0
        withContext(dispatcher) {
            launch {
                repeat(roundTrips) { pong.send(ping.receive() + 1) }
            }
            launch {
                repeat(roundTrips) {
                    ping.send(last)
                    last = pong.receive()
                }
            }
        }
        last
    }

    /** Starts [count] coroutines on [dispatcher] that each `delay(1)`, and waits for them all. */
    @JvmStatic
    fun delayEach(dispatcher: CoroutineDispatcher, count: Int): Int = runBlocking {
        var started = 0
        withContext(dispatcher) {
            repeat(count) {
                launch { delay(1) }
                started++
            }
        }
        started
    }
}
