package wjoin.core.shedding

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}

/**
 * The budgets one shedding engine applies to its arrivals ([[SheddingBackwardEvaluation]],
 * [[SheddingForwardEvaluation]]): the rates it has seen ([[ArrivalRates]]), the memory budget
 * ([[StateBudget]]) and the CPU budget ([[ProbeBudget]]) of a [[ShedPlan]].
 *
 * {{{
 *   batch:      one plan, one random stream:     seed x partition
 *   streaming:  per micro-batch b, retarget:     the batch's plan (re-planned from recent rates)
 *                                                 random choices reseeded: seed x partition x b
 *               kept across batches:             measured rates, the current second's probe counts
 *               saved with the state (bytes):    the same, so an engine rebuilt from the state
 *                                                 store decides exactly as the kept one would
 * }}}
 *
 * Reseeding per batch (rather than continuing one stream) is what makes a rebuilt engine
 * equal to a kept one: the random choices of batch b depend only on (seed, partition, b).
 *
 * @param initial   the first plan
 * @param partition the partition (seeds the random choices)
 * @param batch     the micro-batch the engine starts at (streaming; 0 in batch)
 */
final class ShedBudgets(initial: ShedPlan, partition: Int, batch: Long) {
  val n: Int = initial.n
  private val rates = new ArrivalRates(initial.expectedRates, initial.unitsPerSecond)
  private var memory: StateBudget = _
  private var cpu: ProbeBudget = _
  retarget(initial, batch)

  /** Streaming: micro-batch `batch` runs under `plan` (same query, so the same inputs, unit and seed). */
  def retarget(plan: ShedPlan, batch: Long): Unit = {
    assert(plan.n == n && plan.unitsPerSecond == initial.unitsPerSecond && plan.seed == initial.seed,
      "a micro-batch of the same W-join under other limits")
    val random = plan.random(partition, batch)
    rates.retarget(plan.expectedRates)
    memory = new StateBudget(plan.stateCaps.getOrElse(IndexedSeq.fill(n)(Int.MaxValue)),
      plan.limits.stateRows.getOrElse(Long.MaxValue), plan.retention, rates, random.split())
    val probeRandom = random.split()
    cpu = plan.probeRates.map { mu =>
      if (cpu == null) new ProbeBudget(mu, rates, plan.unitsPerSecond, probeRandom)
      else { cpu.retarget(mu, probeRandom); cpu }
    }.orNull
  }

  /** Counts an arrival of `input` at `time` in the rates (before asking [[stores]] or [[probes]]). */
  def arrive(input: Int, time: Long): Unit = rates.arrive(input, time)

  /** Whether the arrival is stored, its window holding `size` live rows and all windows `all`. */
  def stores(input: Int, size: Int, all: Long): Boolean = memory.admits(input, size, all)

  /** Whether the arrival of `input` at `time` probes. */
  def probes(input: Int, time: Long): Boolean = cpu == null || cpu.probes(input, time)

  /** Streaming: the rates and probe counts, as bytes for the state store. */
  def save(): Array[Byte] = {
    val bytes = new ByteArrayOutputStream(32 * n + 1)
    val out = new DataOutputStream(bytes)
    rates.writeTo(out)
    out.writeBoolean(cpu != null)
    if (cpu != null) cpu.writeTo(out)
    out.flush()
    bytes.toByteArray
  }

  /** Streaming, on an engine rebuilt from the state store: what [[save]] wrote. */
  def restore(saved: Array[Byte]): Unit = {
    val in = new DataInputStream(new ByteArrayInputStream(saved))
    rates.readFrom(in)
    if (in.readBoolean() && cpu != null) cpu.readFrom(in)
  }
}
